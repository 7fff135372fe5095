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

// createModel uploads the gguf as a blob and creates "tiny" and
// "tiny-tools" from it over the HTTP API, as `ollama create -f Modelfile`
// and `-f Modelfile.tools` do with the Modelfiles beside it, without a
// second process. The server reads tiny's chat template from the gguf's
// metadata.
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
	dir := filepath.Dir(model)
	for name, file := range map[string]string{s.ModelName(): "Modelfile", s.ToolModelName(): "Modelfile.tools"} {
		mf, err := readModelfile(filepath.Join(dir, file))
		if err != nil {
			return err
		}
		if filepath.Base(mf.from) != filepath.Base(model) {
			return fmt.Errorf("%s: FROM %s, want the test model %s", file, mf.from, filepath.Base(model))
		}
		// One thread (the Modelfiles say why): PARAMETER num_thread 1.
		spec := map[string]any{
			"model":      name,
			"files":      map[string]string{filepath.Base(model): digest},
			"parameters": mf.parameters,
			"stream":     false,
		}
		if mf.template != "" {
			spec["template"] = mf.template
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
