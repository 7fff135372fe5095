package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

const plainBody = `{"model":"m","messages":[{"role":"user","content":"one two three four"}]}`

func TestLatencyModel(t *testing.T) {
	cases := map[string]struct {
		cfg  func(*Config)
		want time.Duration // TTFTDelay for a 4-word prompt
	}{
		"base":               {func(c *Config) {}, 10 * time.Millisecond},
		"prefill":            {func(c *Config) { c.PrefillPerToken = time.Millisecond }, 14 * time.Millisecond},
		"scale with prefill": {func(c *Config) { c.PrefillPerToken, c.Scale = time.Millisecond, 1.5 }, 21 * time.Millisecond},
		"slowdown alone":     {func(c *Config) { c.Slowdown = 0.5 }, 10 * time.Millisecond},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := Default()
			cfg.TTFT, cfg.TTFTJitter, cfg.TPOTJitter, cfg.OutputTokens = 10*time.Millisecond, 0, 0, 2
			tc.cfg(&cfg)
			srv, url := Start(t, cfg)
			resp, err := post(t, http.DefaultClient, url, plainBody, "")
			if err != nil {
				t.Fatal(err)
			}
			rawBody(t, resp, 1<<20)
			tr := srv.Truth()[0]
			if tr.TTFTDelay != tc.want || tr.Last.Sub(tr.Received) < tc.want {
				t.Errorf("TTFTDelay %v, answered after %v; want %v", tr.TTFTDelay, tr.Last.Sub(tr.Received), tc.want)
			}
		})
	}
}

// TestSlowdown sends requests that overlap: the k-th sees k in flight.
func TestSlowdown(t *testing.T) {
	cfg := Default()
	cfg.TTFT, cfg.TTFTJitter, cfg.Slowdown, cfg.OutputTokens = 100*time.Millisecond, 0, 0.5, 1
	srv, url := Start(t, cfg)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if resp, err := post(t, http.DefaultClient, url, plainBody, ""); err == nil {
				rawBody(t, resp, 1<<20)
			}
		})
		time.Sleep(5 * time.Millisecond) // arrival order = index order
	}
	wg.Wait()
	for _, tr := range srv.Truth() {
		want := scaled(cfg.TTFT, 1+0.5*float64(tr.Index))
		if tr.TTFTDelay != want {
			t.Errorf("request %d: TTFTDelay %v, want %v", tr.Index, tr.TTFTDelay, want)
		}
	}
}

func TestSetConfig(t *testing.T) {
	srv, url := Start(t, fast())
	next := fast()
	next.Scale, next.TTFTJitter = 2, 0
	srv.SetConfig(next)
	resp, err := post(t, http.DefaultClient, url, plainBody, "")
	if err != nil {
		t.Fatal(err)
	}
	rawBody(t, resp, 1<<20)
	if d := srv.Truth()[0].TTFTDelay; d != 2*next.TTFT {
		t.Errorf("TTFTDelay after SetConfig = %v, want %v", d, 2*next.TTFT)
	}
}

func TestQuality(t *testing.T) {
	answer := func(*openai.ChatCompletionRequest) string { return `{"a": {"b": 1}}` }
	cases := map[string]struct {
		cfg          func(*Config)
		want         string
		wrong, valid bool
	}{
		"answer hook": {func(c *Config) { c.Answer = answer }, `{"a": {"b": 1}}`, false, true},
		"wrong default": {func(c *Config) { c.Answer, c.WrongRate = answer, 1 },
			"I don't know", true, false},
		"wrong hook": {func(c *Config) {
			c.Answer, c.WrongRate = answer, 1
			c.Wrong = func(*openai.ChatCompletionRequest) string { return `{"a": {"b": 2}}` }
		}, `{"a": {"b": 2}}`, true, true},
		"invalid json drops the last brace": {func(c *Config) { c.Answer, c.InvalidJSONRate = answer, 1 },
			`{"a": {"b": 1}`, false, false},
		"invalid lorem is cut in half": {func(c *Config) { c.OutputTokens, c.InvalidJSONRate = 4, 1 },
			"lorem ipsum", false, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := fast()
			tc.cfg(&cfg)
			srv, url := Start(t, cfg)
			resp, err := post(t, http.DefaultClient, url, streamBody, "")
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := readSSE(t, resp.Body, "\n")
			resp.Body.Close()
			s, tr := summarize(t, evs), srv.Truth()[0]
			if s.content != tc.want || tr.Answer != tc.want || tr.Wrong != tc.wrong ||
				tr.InvalidJSON != (cfg.InvalidJSONRate == 1) || json.Valid([]byte(s.content)) != tc.valid {
				t.Errorf("content %q, truth %+v; want %q wrong=%v", s.content, tr, tc.want, tc.wrong)
			}
		})
	}
}

// TestAnswersKeepOutputTokens: with fixture answers hooked in, a question
// the book does not know (a synthetic prompt) still gets the OutputTokens
// its spec asks for, and a known one gets its reference answer.
func TestAnswersKeepOutputTokens(t *testing.T) {
	var book Answers
	book.Add("capital of France?", "Paris", "Lyon")
	cfg := Default()
	cfg.TTFT, cfg.TPOT, cfg.OutputTokens = time.Millisecond, time.Millisecond, 37
	book.Hook(&cfg)
	_, url := Start(t, cfg)
	for body, want := range map[string]string{
		streamBody: "",
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"capital of France?"}]}`: "Paris",
	} {
		resp, err := post(t, http.DefaultClient, url, body, "")
		if err != nil {
			t.Fatal(err)
		}
		evs, err := readSSE(t, resp.Body, "\n")
		resp.Body.Close()
		if err != io.EOF {
			t.Fatalf("body ended with %v, want a clean EOF", err)
		}
		got := summarize(t, evs)
		if want == "" && got.tokens != cfg.OutputTokens {
			t.Errorf("unknown question: %d answer tokens, want OutputTokens %d", got.tokens, cfg.OutputTokens)
		}
		if want != "" && got.content != want {
			t.Errorf("known question: answer %q, want %q", got.content, want)
		}
	}
}
