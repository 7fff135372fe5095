package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Digest is the digest of model's weights as the server at host lists it
// (GET /api/tags): what a judgment cached for a model name was given by,
// so that other weights pulled under the same name ask again.
func Digest(ctx context.Context, host, model string) (string, error) {
	host = strings.TrimRight(host, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/api/tags", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("ollama: /api/tags: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("ollama: /api/tags: HTTP %d", resp.StatusCode)
	}
	var tags struct {
		Models []struct {
			Name   string `json:"name"`
			Model  string `json:"model"`
			Digest string `json:"digest"`
		} `json:"models"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&tags); err != nil {
		return "", fmt.Errorf("ollama: /api/tags: %w", err)
	}
	for _, m := range tags.Models {
		if m.Name == model || m.Model == model || m.Name == model+":latest" {
			return m.Digest, nil
		}
	}
	return "", fmt.Errorf("ollama: /api/tags lists no model %q", model)
}
