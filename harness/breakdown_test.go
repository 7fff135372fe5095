package harness

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportBreakdown: on an Ollama endpoint a benchmark reports the
// server's split of the TTFT as figures the gate can compare.
func TestReportBreakdown(t *testing.T) {
	ep := cannedOllama(t, http.StatusOK, "")
	s, c := ollamaCell(t, ep)
	res := testing.Benchmark(func(b *testing.B) {
		reportBreakdown(b, s, c)
	})
	assert.Equal(t, 5.0, res.Extra["load-ms"])
	assert.Equal(t, 2.0, res.Extra["prefill-ms"])
	assert.Equal(t, 500.0, res.Extra["server-tok/s"], "2 tokens in 4 ms")
	// The canned server answers at once while claiming 7 ms of work, so
	// network+queue is negative here; only its presence is checked.
	assert.Contains(t, res.Extra, "netq-ms")
	for _, m := range metric.Table {
		if m.Kind == metric.Server {
			assert.Contains(t, res.Extra, m.BenchUnit, "metric %s: every server figure of the table is reported", m.Name)
		}
	}
}

// TestReportBreakdownUnitsFromTable: the breakdown's units are the metric
// table's, so that a row renamed there cannot leave a figure reported
// under a unit the gate no longer knows (and so never gates).
func TestReportBreakdownUnitsFromTable(t *testing.T) {
	ep := cannedOllama(t, http.StatusOK, "")
	s, c := ollamaCell(t, ep)
	bench := func() testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) { reportBreakdown(b, s, c) })
	}

	m := metric.ByName("load")
	require.NotNil(t, m)
	orig := *m
	t.Cleanup(func() { *m = orig })

	m.BenchUnit = "model-load-ms"
	res := bench()
	assert.Equal(t, 5.0, res.Extra["model-load-ms"], "the unit the table names")
	assert.NotContains(t, res.Extra, "load-ms")

	*m = orig
	m.Name = "model_load" // the breakdown has no figure of that name: fail, do not drop it
	assert.Zero(t, bench().N, "a server row without a figure fails the benchmark")
}

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

// ollamaCell is a session on ep and a cell of chat there.
func ollamaCell(t *testing.T, ep stream.Endpoint) (*session.Session, session.Cell) {
	t.Helper()
	s, err := session.New(&config.Config{Source: "test", Endpoints: []stream.Endpoint{ep}, Scenarios: config.Presets()}, session.Run{}, session.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	fix, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	return s, session.Cell{Scenario: "chat", Endpoint: ep, Settings: config.Scenario{MaxTokens: 8}, Fixture: fix}
}
