package session

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestBrokenFixtureNamesFileAndLine: a bad case is reported as file:line
// (the fixture is loaded before the first request).
func TestBrokenFixtureNamesFileAndLine(t *testing.T) {
	s, _ := simSession(t, "")
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(
		`{"id":"a","prompt":"hi","expected":"x","match":{"type":"exact"},"answer":"x","wrong_answer":"y"}`+"\n"+
			`{"id":"b","prompt":"hi","expected":"x","match":{"type":"exactly"},"answer":"x","wrong_answer":"y"}`+"\n"), 0o644))
	_, err := s.Source(Scenario{Name: "chat", Fixture: bad})
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+":2: match.type")
}

func TestGoldenNeedsDeterminism(t *testing.T) {
	zero := float32(0)
	assert.False(t, Scenario{Golden: "g"}.Deterministic())
	assert.False(t, Scenario{Golden: "g", Temperature: &zero}.Deterministic())
	assert.True(t, Scenario{Golden: "g", Temperature: &zero, Seed: new(int)}.Deterministic())
	assert.ErrorContains(t, Scenario{Name: "g", Fixture: "f", Golden: "g"}.Check(), "golden outputs need Temperature 0 and a Seed")
}

// TestCapacityNotSharded: a capacity search in a sharded run is refused
// before any request: each shard would search on its share of the load,
// and the limit found would be no machine's. A sharded run without one
// passes, and a level that cannot be split is named.
func TestCapacityNotSharded(t *testing.T) {
	t.Setenv(config.EnvEndpoints, "")
	load := func(file string) *config.Config {
		t.Helper()
		path := filepath.Join(t.TempDir(), "sla.yaml")
		require.NoError(t, os.WriteFile(path, []byte("endpoints:\n  s: {sim: \"\"}\n"+file), 0o644))
		cfg, err := config.LoadFile(path)
		require.NoError(t, err)
		return cfg
	}
	two := shardOf(0, 2)
	err := CheckShard(load("scenarios:\n  chat:\n    concurrency: [2, 4]\n    capacity: {by: concurrency}\n"), Scenario{Name: "chat"}, two)
	require.Error(t, err)
	assert.Regexp(t, `sla\.yaml:6: scenarios\.chat\.capacity: a capacity search cannot be sharded: run it on one machine.*\(this is shard 0/2\)$`, err.Error())

	assert.NoError(t, CheckShard(load("scenarios:\n  chat:\n    concurrency: [2, 4]\n"), Scenario{Name: "chat"}, two), "a sharded run without a search")
	err = CheckShard(load("scenarios:\n  chat:\n    concurrency: [1]\n"), Scenario{Name: "chat"}, two)
	assert.ErrorContains(t, err, "shard 0/2: scenarios.chat (concurrency=1): concurrency 1 cannot be split over 2 shards")
}

// TestBreakdownRedacted: a server quoting a secret back in its error has
// it redacted from what Session.Breakdown returns, as from the logs.
func TestBreakdownRedacted(t *testing.T) {
	const secret = "hdr-secret-0123456789"
	ep := cannedOllama(t, http.StatusBadRequest, "bad header X-Team: "+secret)
	ep.Headers = map[string]string{"X-Team": secret}
	s, err := New(&config.Config{Source: "test", Endpoints: []stream.Endpoint{ep}, Scenarios: config.Presets()}, Run{}, Options{})
	require.NoError(t, err)
	defer s.Close()
	fix, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	_, err = s.Breakdown(context.Background(), Cell{Scenario: "chat", Endpoint: ep, Settings: config.Scenario{MaxTokens: 8}, Fixture: fix}, 1, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 400")
	assert.NotContains(t, err.Error(), secret)
	assert.Contains(t, err.Error(), "[redacted]")
}

func shardOf(i, n int) load.Shard { return load.Shard{I: i, N: n} }

// cannedOllama is an Ollama endpoint whose /api/chat answers two tokens
// with fixed timings (status 200), or status and body.
func cannedOllama(t *testing.T, status int, body string) stream.Endpoint {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/chat", func(w http.ResponseWriter, r *http.Request) {
		if status != http.StatusOK {
			http.Error(w, body, status)
			return
		}
		io.WriteString(w, `{"message":{"content":"a"}}`+"\n"+`{"message":{"content":"b"}}`+"\n"+
			`{"message":{"content":""},"done":true,"load_duration":5000000,"prompt_eval_count":3,`+
			`"prompt_eval_duration":2000000,"eval_count":2,"eval_duration":4000000,"total_duration":12000000}`+"\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return stream.Endpoint{Name: "local", BaseURL: srv.URL + "/v1", Model: "tiny", Kind: "ollama"}
}
