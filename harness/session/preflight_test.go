package session

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestLatencyToolsRefused: a model that does not take tools (Ollama
// refuses one whose chat template has none, with HTTP 400 and this body)
// fails the tools scenario's probe with the server's message and what to
// do about it; the same refusal of a request without tools gets no hint.
func TestLatencyToolsRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"registry.ollama.ai/library/tiny:latest does not support tools","type":"api_error","param":null,"code":null}}`))
	}))
	defer srv.Close()
	ep := stream.Endpoint{Name: "local", BaseURL: srv.URL + "/v1", Model: "tiny", Timeouts: stream.DefaultTimeouts}
	s, err := New(&config.Config{Source: "test", Endpoints: []stream.Endpoint{ep}, Scenarios: config.Presets()}, Run{}, Options{})
	require.NoError(t, err)
	defer s.Close()
	for _, tc := range []struct {
		scenario, fixture string
		hint              bool
	}{{"tools", "fixtures/tools.jsonl", true}, {"chat", "fixtures/classify.jsonl", false}} {
		fix, err := s.Source(Scenario{Name: tc.scenario, Fixture: tc.fixture})
		require.NoError(t, err)
		_, err = s.Latency(context.Background(), Cell{Scenario: tc.scenario, Endpoint: ep, Settings: config.Scenario{MaxTokens: 8}, Fixture: fix})
		require.Error(t, err, tc.scenario)
		assert.Contains(t, err.Error(), "does not support tools", "%s: the server's message", tc.scenario)
		if tc.hint {
			assert.Contains(t, err.Error(), "measure the other scenarios with -bench", tc.scenario)
		} else {
			assert.NotContains(t, err.Error(), "-bench", tc.scenario)
		}
	}
}
