package ollamatest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/ollama"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := StopShared(); err != nil {
		println("ollama: stop shared server:", err.Error())
	}
	os.Exit(code)
}

// ask is the deterministic request the tests measure: temperature 0 and a
// fixed seed, so the tiny model's gibberish is the same every run.
func ask(s *Server, n int) ollama.ChatRequest {
	return ollama.ChatRequest{
		Model:      s.ModelName(),
		Messages:   []ollama.Message{{Role: "user", Content: "Why is the sky blue?"}},
		NumPredict: n,
	}
}

func chat(t *testing.T, s *Server, req ollama.ChatRequest) ollama.ChatResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := ollama.Chat(ctx, s.Host(), req)
	if err != nil {
		t.Fatalf("Chat: %v (partial result %+v)", err, r)
	}
	return r
}

func TestOllamaOpenAIStream(t *testing.T) {
	s := Shared(t)
	body := `{"model":"tiny","stream":true,"max_tokens":8,"temperature":0,"seed":1,
		"messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true}}`
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d, want 200", resp.StatusCode)
	}
	var (
		chunks, usageTokens int
		finish              string
		done, usageSeen     bool
	)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			break
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		if c.Usage != nil && len(c.Choices) == 0 {
			usageSeen, usageTokens = true, c.Usage.CompletionTokens
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != "" {
				chunks++
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("content chunks %d, usage.completion_tokens %d, finish %q", chunks, usageTokens, finish)
	switch {
	case !done:
		t.Error("stream ended without data: [DONE]")
	case !usageSeen:
		t.Error("no usage chunk (choices: []) before [DONE]")
	case chunks == 0:
		t.Error("no content-bearing chunk")
	case usageTokens != 8 || finish != "length":
		t.Errorf("completion_tokens %d, finish %q; want 8, \"length\" (max_tokens 8)", usageTokens, finish)
	case chunks > usageTokens:
		t.Errorf("%d content chunks > %d completion tokens", chunks, usageTokens)
	}
}

func TestOllamaChatTimings(t *testing.T) {
	s := Shared(t)
	r := chat(t, s, ask(s, 16))
	t.Logf("%+v", r)
	st := r.Server
	if st.Load <= 0 || st.PromptEval <= 0 || st.Eval <= 0 || st.Total <= 0 || st.PromptN <= 0 {
		t.Errorf("server timings missing: %+v", st)
	}
	if st.EvalN != 16 || r.DoneReason != "length" {
		t.Errorf("eval_count %d, done_reason %q; want 16, \"length\" (num_predict 16)", st.EvalN, r.DoneReason)
	}
	if !(0 < r.TTFB && r.TTFB <= r.TTFT && r.TTFT < r.Total) {
		t.Errorf("want 0 < ttfb ≤ ttft < total, got %v, %v, %v", r.TTFB, r.TTFT, r.Total)
	}
	if r.Total < st.Total {
		t.Errorf("client total %v < server total_duration %v", r.Total, st.Total)
	}
}

// TestOllamaBreakdown checks the split on warm requests: the server's spans
// lie inside the client's TTFT, and what they leave (network+queue) is small.
func TestOllamaBreakdown(t *testing.T) {
	s := Shared(t)
	chat(t, s, ask(s, 4)) // make sure the model is loaded
	tolerance := time.Duration(s.Slowdown(t) * float64(100*time.Millisecond))
	for range 5 {
		r := chat(t, s, ask(s, 16))
		b := ollama.Breakdown(r)
		t.Logf("ttft %v = load %v + prefill %v + network+queue %v; decode %.0f chunks/s client, %.0f tok/s server",
			b.TTFT, b.Load, b.Prefill, b.NetworkQueue, b.ClientDecodeRate, b.ServerDecodeRate)
		if b.TTFT < b.Prefill {
			t.Errorf("client ttft %v < server prompt_eval_duration %v", b.TTFT, b.Prefill)
		}
		if b.NetworkQueue < 0 || b.NetworkQueue > tolerance {
			t.Errorf("network+queue %v outside [0, %v]", b.NetworkQueue, tolerance)
		}
		if b.Load+b.Prefill+b.NetworkQueue != b.TTFT {
			t.Errorf("load+prefill+network+queue %v ≠ ttft %v", b.Load+b.Prefill+b.NetworkQueue, b.TTFT)
		}
		if !b.ClientDecodeOK || !b.ServerDecodeOK {
			t.Errorf("decode rate undefined: %+v", b)
		}
		// Observed on this prompt: 16 tokens, 16 chunks, every token a
		// whole UTF-8 sequence.
		if b.CountMismatch {
			t.Errorf("%d chunks ≠ eval_count %d for the 16-token answer %q", r.Chunks, r.Server.EvalN, r.Content)
		}
	}
}

// TestOllamaChunksVsEvalCount checks the one way counts may differ: a token
// that ends inside a multi-byte character is sent with the next one, so
// eval_count − chunks is at most the continuation bytes in the answer, plus
// up to 3 for an incomplete character dropped at the limit.
func TestOllamaChunksVsEvalCount(t *testing.T) {
	s := Shared(t)
	r := chat(t, s, ask(s, 64))
	cont := len(r.Content) - utf8.RuneCountInString(r.Content)
	gap := r.Server.EvalN - r.Chunks
	t.Logf("eval_count %d, chunks %d, continuation bytes %d, CountMismatch %v",
		r.Server.EvalN, r.Chunks, cont, ollama.Breakdown(r).CountMismatch)
	if gap < 0 || gap > cont+3 {
		t.Errorf("eval_count %d − chunks %d = %d, want 0…%d", r.Server.EvalN, r.Chunks, gap, cont+3)
	}
	if ollama.Breakdown(r).CountMismatch != (gap != 0) {
		t.Error("CountMismatch disagrees with the counts")
	}
}

// TestOllamaColdStart uses its own server so that its first request is
// surely the one that loads the model.
func TestOllamaColdStart(t *testing.T) {
	s := Start(t)
	cold := chat(t, s, ask(s, 4))
	for i := range 3 {
		warm := chat(t, s, ask(s, 4))
		t.Logf("load_duration cold %v, warm #%d %v", cold.Server.Load, i+1, warm.Server.Load)
		if warm.Server.Load >= cold.Server.Load {
			t.Errorf("warm load_duration %v ≥ cold %v", warm.Server.Load, cold.Server.Load)
		}
	}
}

// TestOllamaUnload checks that ollama.Unload makes the next request cold again on a
// running server: its load_duration is a model load, not a hand-over.
func TestOllamaUnload(t *testing.T) {
	s := Shared(t)
	chat(t, s, ask(s, 4)) // loaded, whichever test ran before
	warm := chat(t, s, ask(s, 4))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ollama.Unload(ctx, s.Host(), s.ModelName()); err != nil {
		t.Fatal(err)
	}
	cold := chat(t, s, ask(s, 4))
	t.Logf("load_duration before unload %v, after %v", warm.Server.Load, cold.Server.Load)
	if cold.Server.Load <= 2*warm.Server.Load {
		t.Errorf("load_duration after unload %v, want > 2 × the warm %v", cold.Server.Load, warm.Server.Load)
	}
}
