package ollamatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// createModel uploads the gguf as a blob and creates "tiny" from it over the
// HTTP API, as `ollama create -f Modelfile` does, without a second process,
// and "tiny-tools" beside it (tools.go). The server reads tiny's chat
// template from the gguf's metadata.
func (s *Server) createModel(model string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := fileSHA256(model)
	if err != nil {
		return err
	}
	digest := "sha256:" + sum
	f, err := os.Open(model)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := s.post(ctx, "/api/blobs/"+digest, f); err != nil {
		return fmt.Errorf("upload %s: %w", model, err)
	}
	for name, template := range map[string]string{s.ModelName(): "", s.ToolModelName(): toolTemplate} {
		spec := map[string]any{
			"model": name,
			"files": map[string]string{filepath.Base(model): digest},
			// One thread: the tiny model's decode is thread synchronisation,
			// not arithmetic. Two threads on a 2-core machine decode at 3-5 ms
			// a token, and at 40-60 ms when another process holds a core (a
			// thread waits at every barrier for one descheduled); one thread
			// decodes at 0.5 ms either way.
			"parameters": map[string]any{"num_thread": 1},
			"stream":     false,
		}
		if template != "" {
			spec["template"] = template
		}
		body, _ := json.Marshal(spec)
		if err := s.post(ctx, "/api/create", bytes.NewReader(body)); err != nil {
			return fmt.Errorf("create model %q from %s: %w", name, model, err)
		}
	}
	return nil
}

func (s *Server) post(ctx context.Context, path string, body io.Reader) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Host()+path, body)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
	}
	return nil
}
