package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Unload asks the server at host to unload model now (keep_alive 0) and
// waits until GET /api/ps no longer lists it, so that the next request to
// the model is a cold one: a new runner process and a model load, as on the
// first request after `ollama serve` starts. It lets a test on a [Shared]
// server measure a cold start without starting a server of its own.
func Unload(ctx context.Context, host, model string) error {
	host = strings.TrimRight(host, "/")
	body, _ := json.Marshal(map[string]any{"model": model, "keep_alive": 0})
	if err := post(ctx, host+"/api/generate", body); err != nil {
		return fmt.Errorf("ollama: unload %s: %w", model, err)
	}
	for {
		loaded, err := running(ctx, host)
		if err != nil {
			return fmt.Errorf("ollama: unload %s: %w", model, err)
		}
		if !slices.ContainsFunc(loaded, func(n string) bool { return n == model || strings.HasPrefix(n, model+":") }) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ollama: unload %s: still loaded: %w", model, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func post(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
	}
	return nil
}

// running lists the models GET /api/ps reports loaded.
func running(ctx context.Context, host string) ([]string, error) {
	ps, err := PS(ctx, nil, host)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ps))
	for i, m := range ps {
		names[i] = m.Name
	}
	return names, nil
}
