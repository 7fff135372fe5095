package harness

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sim"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOllamaBreakdownCanned runs OllamaBreakdown against a canned /api/chat:
// the request it sends is the prompt's, and the means add up.
func TestOllamaBreakdownCanned(t *testing.T) {
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		json.Unmarshal(b, &m)
		got = append(got, m)
		// load 5 ms, prefill 2 ms, 3 tokens in 2 chunks (the last two
		// tokens together, as for a split UTF-8 character).
		io.WriteString(w, `{"message":{"content":"a"}}`+"\n"+`{"message":{"content":"bé"}}`+"\n"+
			`{"message":{"content":""},"done":true,"done_reason":"stop","load_duration":5000000,`+
			`"prompt_eval_count":3,"prompt_eval_duration":2000000,"eval_count":3,"eval_duration":3000000,"total_duration":12000000}`+"\n")
	}))
	defer srv.Close()

	zero := float32(0)
	seed := 7
	schema := json.RawMessage(`{"type":"object"}`)
	prompts := func(i int) Prompt {
		return Prompt{Request: Request{
			Messages:    []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
			Temperature: &zero, Seed: &seed, MaxTokens: 16,
			ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "x", Schema: schema}},
		}}
	}
	ep := Endpoint{Name: "local", BaseURL: srv.URL + "/v1/", Model: "tiny", Kind: "ollama"}
	b, err := OllamaBreakdown(context.Background(), ep, prompts, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d requests, want 2", len(got))
	}
	opts, _ := got[0]["options"].(map[string]any)
	if got[0]["model"] != "tiny" || opts["num_predict"] != 16.0 || opts["temperature"] != 0.0 || opts["seed"] != 7.0 {
		t.Errorf("request %v: want model tiny, num_predict 16, temperature 0, seed 7", got[0])
	}
	if f, _ := json.Marshal(got[0]["format"]); string(f) != `{"type":"object"}` {
		t.Errorf("format %s, want the prompt's schema", f)
	}
	if b.N != 2 || b.Load != 5*time.Millisecond || b.Prefill != 2*time.Millisecond {
		t.Errorf("n %d load %v prefill %v, want 2, 5ms, 2ms", b.N, b.Load, b.Prefill)
	}
	if b.NetworkQueue+b.Load+b.Prefill != b.TTFT {
		t.Errorf("network+queue %v + load %v + prefill %v ≠ ttft %v", b.NetworkQueue, b.Load, b.Prefill, b.TTFT)
	}
	if b.ClientTokens != 4 || b.ServerTokens != 6 || b.Mismatches != 2 {
		t.Errorf("tokens client %d server %d mismatches %d, want 4, 6, 2", b.ClientTokens, b.ServerTokens, b.Mismatches)
	}
	if s := b.String(); !strings.Contains(s, "tokens client 4 ≠ server 6 (2 of 2 requests disagree)") {
		t.Errorf("String() = %q: no count mismatch", s)
	}
}

func TestOllamaBreakdownNotOllama(t *testing.T) {
	_, err := OllamaBreakdown(context.Background(), Endpoint{Name: "prod", Kind: "openai"}, nil, 1)
	if !errors.Is(err, ErrNotOllama) {
		t.Errorf("err = %v, want ErrNotOllama", err)
	}
}

func TestNativeRequestDefaults(t *testing.T) {
	cases := map[string]struct {
		rf         *openai.ChatCompletionResponseFormat
		wantFormat string
	}{
		"no format":   {nil, ""},
		"json object": {&openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}, `"json"`},
		"plain text":  {&openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeText}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := nativeRequest("m", Request{ResponseFormat: tc.rf})
			if err != nil {
				t.Fatal(err)
			}
			// A nil temperature is 1.0, as Ollama's OpenAI-compatible API makes it.
			if r.Temperature != 1 || string(r.Format) != tc.wantFormat {
				t.Errorf("temperature %v format %q, want 1 and %q", r.Temperature, r.Format, tc.wantFormat)
			}
		})
	}
}

func TestOllamaHost(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:11434/v1":  "http://127.0.0.1:11434",
		"http://127.0.0.1:11434/v1/": "http://127.0.0.1:11434",
		"http://gpu-box:11434":       "http://gpu-box:11434",
	} {
		if got := OllamaHost(in); got != want {
			t.Errorf("OllamaHost(%q) = %q, want %q", in, got, want)
		}
	}
}

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
	ep := Endpoint{Name: "local", BaseURL: srv.URL + "/v1", Model: "tiny", Kind: "ollama"}
	s, err := NewSession(&Config{Source: "test", Endpoints: []Endpoint{ep}, Scenarios: DefaultScenarios()})
	require.NoError(t, err)
	defer s.Close()
	res := testing.Benchmark(func(b *testing.B) {
		s.reportBreakdown(b, ep, ScenarioConfig{MaxTokens: 8}, hello())
	})
	assert.Equal(t, 5.0, res.Extra["load-ms"])
	assert.Equal(t, 2.0, res.Extra["prefill-ms"])
	assert.Equal(t, 500.0, res.Extra["server-tok/s"], "2 tokens in 4 ms")
	// The canned server answers at once while claiming 7 ms of work, so
	// network+queue is negative here; only its presence is checked.
	assert.Contains(t, res.Extra, "netq-ms")
}
