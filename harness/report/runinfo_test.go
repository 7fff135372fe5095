package report

import (
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestNewRunInfo: the run's window is its measured requests' (warm-up
// left out), each endpoint lists the models that answered, in order, and
// its host comes from the lookup.
func TestNewRunInfo(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ss := []sample.Sample{
		{Endpoint: "prod", Model: "b", Warmup: true, Start: t0.Add(-time.Hour), Total: time.Second},
		{Endpoint: "prod", Model: "a", Start: t0, Total: time.Second},
		{Endpoint: "prod", Model: "b", Start: t0.Add(5 * time.Second), Total: 2 * time.Second},
		{Endpoint: "local", Start: t0.Add(time.Second), Total: time.Second},
	}
	info := NewRunInfo(ss, func(ep string) string {
		return map[string]string{"prod": "api.example.com:8443"}[ep]
	})
	if !info.Start.Equal(t0) || !info.End.Equal(t0.Add(7*time.Second)) {
		t.Errorf("window %v – %v, want %v – %v", info.Start, info.End, t0, t0.Add(7*time.Second))
	}
	want := []string{"local: model not recorded", "prod: models a, b at api.example.com:8443"}
	if len(info.Endpoints) != 2 || info.Endpoints[0].String() != want[0] || info.Endpoints[1].String() != want[1] {
		t.Errorf("endpoints %v, want %q", info.Endpoints, want)
	}
	props := map[string]string{}
	for _, p := range info.Properties() {
		props[p.Name] = p.Value
	}
	if props["endpoint.prod"] != "models a, b at api.example.com:8443" || props["start"] != "2026-01-01T12:00:00Z" || props["commit"] == "" {
		t.Errorf("properties %v", props)
	}
}
