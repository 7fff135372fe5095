package harness

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportBreakdown: on an Ollama endpoint a benchmark reports the
// server's split of the TTFT as figures the gate can compare.
func TestReportBreakdown(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/v1/", sim.New(sim.Default()))
	mux.HandleFunc("/api/chat", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"message":{"content":"a"}}`+"\n"+`{"message":{"content":"b"}}`+"\n"+
			`{"message":{"content":""},"done":true,"load_duration":5000000,"prompt_eval_count":3,`+
			`"prompt_eval_duration":2000000,"eval_count":2,"eval_duration":4000000,"total_duration":12000000}`+"\n")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ep := stream.Endpoint{Name: "local", BaseURL: srv.URL + "/v1", Model: "tiny", Kind: "ollama"}
	s, err := NewSession(&config.Config{Source: "test", Endpoints: []stream.Endpoint{ep}, Scenarios: config.Presets()})
	require.NoError(t, err)
	defer s.Close()
	res := testing.Benchmark(func(b *testing.B) {
		s.reportBreakdown(b, ep, config.Scenario{MaxTokens: 8}, hello())
	})
	assert.Equal(t, 5.0, res.Extra["load-ms"])
	assert.Equal(t, 2.0, res.Extra["prefill-ms"])
	assert.Equal(t, 500.0, res.Extra["server-tok/s"], "2 tokens in 4 ms")
	// The canned server answers at once while claiming 7 ms of work, so
	// network+queue is negative here; only its presence is checked.
	assert.Contains(t, res.Extra, "netq-ms")
}

func hello() load.Source {
	return load.SourceFunc(func(i int) load.Prompt {
		return load.Prompt{Request: stream.Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}}}
	})
}
