package ollama

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

	"github.com/llmsla/llmsla/harness/stream"
	openai "github.com/sashabaranov/go-openai"
)

// TestMeasureCanned runs Measure against a canned /api/chat:
// the request it sends is the prompt's, and the means add up.
func TestMeasureCanned(t *testing.T) {
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
	req := stream.Request{
		Messages:    []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
		Temperature: &zero, Seed: &seed, MaxTokens: 16,
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "x", Schema: schema}},
	}
	ep := stream.Endpoint{Name: "local", BaseURL: srv.URL + "/v1/", Model: "tiny", Kind: "ollama"}
	b, err := Measure(context.Background(), ep, []stream.Request{req, req})
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

func TestMeasureNotOllama(t *testing.T) {
	_, err := Measure(context.Background(), stream.Endpoint{Name: "prod", Kind: "openai"}, nil)
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
			r, err := NativeRequest("m", stream.Request{ResponseFormat: tc.rf})
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

func TestHost(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:11434/v1":  "http://127.0.0.1:11434",
		"http://127.0.0.1:11434/v1/": "http://127.0.0.1:11434",
		"http://gpu-box:11434":       "http://gpu-box:11434",
	} {
		if got := Host(in); got != want {
			t.Errorf("Host(%q) = %q, want %q", in, got, want)
		}
	}
}
