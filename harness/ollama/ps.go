package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Loaded is one model GET /api/ps lists as loaded: its name and the
// memory it holds, in bytes, of which SizeVRAM in the GPU's (0 on a CPU).
type Loaded struct {
	Name     string `json:"name"`
	Model    string `json:"model"`
	Size     int64  `json:"size"`
	SizeVRAM int64  `json:"size_vram"`
}

// maxPS bounds the /api/ps body read: a few hundred bytes a model.
const maxPS = 1 << 20

// PS lists the models the server at host (as Server.Host) has loaded,
// with client (http.DefaultClient when nil).
func PS(ctx context.Context, client *http.Client, host string) ([]Loaded, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(host, "/")+"/api/ps", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/api/ps: HTTP %d", resp.StatusCode)
	}
	var ps struct {
		Models []Loaded `json:"models"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxPS)).Decode(&ps); err != nil {
		return nil, fmt.Errorf("/api/ps: %w", err)
	}
	for _, m := range ps.Models {
		if m.Size < 0 || m.SizeVRAM < 0 || m.SizeVRAM > m.Size {
			return nil, fmt.Errorf("/api/ps: model %q: size %d, size_vram %d (allowed: 0 ≤ size_vram ≤ size)", m.Name, m.Size, m.SizeVRAM)
		}
	}
	return ps.Models, nil
}
