package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/lateness"
)

func fast() Config {
	c := Default()
	c.TTFT, c.TPOT, c.OutputTokens = 5*time.Millisecond, time.Millisecond, 6
	return c
}

// TestFraming: each framing option on the wire. The keep-alive case's
// count of pings is bounded by the lateness the process showed while it
// streamed (a starved ticker drops its ticks): 3 on a quiet machine, at
// least 30 ms / (5 ms + the worst wake) on a busy one. Proven: with
// KeepAlive ignored (no pings) it fails at any lateness.
func TestFraming(t *testing.T) {
	var late lateness.Figures // of the case running
	cases := map[string]struct {
		cfg    func(*Config)
		body   string
		tokens int // token-bearing chunks expected
		finish string
		check  func(t *testing.T, s summary)
	}{
		"default": {tokens: 6, finish: "stop"},
		"no role": {cfg: func(c *Config) { c.RoleChunk = false }, tokens: 6, finish: "stop",
			check: func(t *testing.T, s summary) {
				if s.roleOnly != 0 {
					t.Errorf("role chunks = %d, want 0", s.roleOnly)
				}
			}},
		"empty content": {cfg: func(c *Config) { c.EmptyContent = true }, tokens: 6, finish: "stop",
			check: func(t *testing.T, s summary) {
				if s.empty != 1 || s.roleOnly != 1 {
					t.Errorf("empty, role chunks = %d, %d; want 1, 1", s.empty, s.roleOnly)
				}
			}},
		"crlf": {cfg: func(c *Config) { c.CRLF = true }, tokens: 6, finish: "stop"},
		"multiline": {cfg: func(c *Config) { c.MultiLine, c.ReasoningTokens = true, 2 }, tokens: 8, finish: "stop",
			check: func(t *testing.T, s summary) {
				if s.oneLine != 0 {
					t.Errorf("%d JSON events on one data line, want every one spread over several", s.oneLine)
				}
			}},
		"multiline crlf": {cfg: func(c *Config) { c.MultiLine, c.CRLF = true, true }, tokens: 6, finish: "stop",
			check: func(t *testing.T, s summary) {
				if s.oneLine != 0 {
					t.Errorf("%d JSON events on one data line", s.oneLine)
				}
			}},
		"no usage": {cfg: func(c *Config) { c.NoUsage = true }, tokens: 6, finish: "stop"},
		"no done":  {cfg: func(c *Config) { c.NoDone = true }, tokens: 6, finish: "stop"},
		"usage not asked": {body: `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			tokens: 6, finish: "stop"},
		"reasoning": {cfg: func(c *Config) { c.ReasoningTokens = 4 }, tokens: 10, finish: "stop",
			check: func(t *testing.T, s summary) {
				if s.reasoning != 4 || !s.firstAnswer.After(s.firstToken) {
					t.Errorf("reasoning = %d, first answer %v after first token: want 4 and later",
						s.reasoning, s.firstAnswer.Sub(s.firstToken))
				}
			}},
		"keepalive": {cfg: func(c *Config) { c.TTFT, c.KeepAlive = 30*time.Millisecond, 5*time.Millisecond },
			tokens: 6, finish: "stop",
			check: func(t *testing.T, s summary) {
				want := min(3, max(1, int(30*time.Millisecond/(5*time.Millisecond+late.Max))))
				if s.pings < want {
					t.Errorf("pings = %d, want >= %d during a 30ms TTFT at 5ms (%s)", s.pings, want, late)
				}
			}},
		"max_tokens cuts": {tokens: 4, finish: "length",
			body: `{"model":"m","stream":true,"max_tokens":4,"stream_options":{"include_usage":true},"messages":[]}`},
		"max_completion_tokens cuts reasoning first": {cfg: func(c *Config) { c.ReasoningTokens = 5 },
			tokens: 3, finish: "length",
			body: `{"model":"m","stream":true,"max_completion_tokens":3,"stream_options":{"include_usage":true},"messages":[]}`,
			check: func(t *testing.T, s summary) {
				if s.reasoning != 3 || s.content != "" {
					t.Errorf("reasoning, content = %d, %q; want 3, empty", s.reasoning, s.content)
				}
			}},
		"answer hook split": {cfg: func(c *Config) {
			c.Answer = func(*openai.ChatCompletionRequest) string { return `{"total": 1234567890123, "ok": true}` }
		}, tokens: 6, finish: "stop", // {"total" | : | 12345678 | 90123, | "ok": | true}
			check: func(t *testing.T, s summary) {
				if s.content != `{"total": 1234567890123, "ok": true}` {
					t.Errorf("content = %q", s.content)
				}
			}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := fast()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			body := tc.body
			if body == "" {
				body = streamBody
			}
			srv, url := Start(t, cfg)
			probe := lateness.Start()
			resp, err := post(t, http.DefaultClient, url, body, "")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type = %q", ct)
			}
			nl := "\n"
			if cfg.CRLF {
				nl = "\r\n"
			}
			evs, err := readSSE(t, resp.Body, nl)
			late = probe.Stop()
			if err != io.EOF {
				t.Fatalf("body ended with %v, want a clean EOF", err)
			}
			s := summarize(t, evs)
			tr := srv.Truth()[0]
			if !tr.Done {
				t.Fatal("truth not final after the stream ended")
			}
			wantUsage := tc.tokens
			if cfg.NoUsage || !strings.Contains(body, "include_usage") {
				wantUsage = -1
			}
			if s.tokens != tc.tokens || tr.OutputTokens != tc.tokens || s.usage != wantUsage {
				t.Errorf("chunks, truth, usage = %d, %d, %d; want %d, %d, %d",
					s.tokens, tr.OutputTokens, s.usage, tc.tokens, tc.tokens, wantUsage)
			}
			if s.finish != tc.finish || tr.Finish != tc.finish {
				t.Errorf("finish = %q (truth %q), want %q", s.finish, tr.Finish, tc.finish)
			}
			if s.done == cfg.NoDone {
				t.Errorf("[DONE] sent = %v with NoDone = %v", s.done, cfg.NoDone)
			}
			if s.content != tr.Answer {
				t.Errorf("content %q, truth answer %q", s.content, tr.Answer)
			}
			if wantRole := b2i(cfg.RoleChunk); s.roleOnly != wantRole {
				t.Errorf("role-only chunks = %d, want %d", s.roleOnly, wantRole)
			}
			for _, ev := range evs {
				if !ev.comment && ev.data != "[DONE]" && decodeChunk(t, ev.data).ID != tr.ID {
					t.Errorf("chunk id in %q, want %s", ev.data, tr.ID)
				}
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRequestRecorded(t *testing.T) {
	srv, url := Start(t, fast())
	body := `{"model":"gpt-x","temperature":0,"seed":7,"max_tokens":100,"stream":false,` +
		`"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"a b c"}]}]}`
	resp, err := post(t, http.DefaultClient, url, body, "")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Choices []struct {
			Message      struct{ Content string } `json:"message"`
			FinishReason string                   `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tr := srv.Truth()[0]
	if tr.Temperature == nil || *tr.Temperature != 0 || tr.Seed == nil || *tr.Seed != 7 {
		t.Errorf("temperature, seed = %v, %v; want 0, 7 as received", tr.Temperature, tr.Seed)
	}
	if tr.Model != "gpt-x" || tr.MaxTokens != 100 || tr.PromptTokens != 5 || tr.Stream {
		t.Errorf("truth = %+v", tr)
	}
	if got.Object != "chat.completion" || got.ID != tr.ID || got.Choices[0].Message.Content != tr.Answer ||
		got.Usage.CompletionTokens != 6 || got.Usage.PromptTokens != 5 || got.Choices[0].FinishReason != "stop" {
		t.Errorf("completion = %+v, truth %+v", got, tr)
	}
	if elapsed := tr.Last.Sub(tr.Received); elapsed < tr.TTFTDelay+4*time.Millisecond {
		t.Errorf("non-stream answer after %v, want at least TTFT+5 TPOT", elapsed)
	}
}

func TestBadRequests(t *testing.T) {
	_, url := Start(t, fast())
	cases := map[string]struct {
		method, path, body string
		status             int
	}{
		"bad json":      {http.MethodPost, "/chat/completions", `{"model":`, 400},
		"unknown fault": {http.MethodPost, "/chat/completions", streamBody, 400},
		"get chat":      {http.MethodGet, "/chat/completions", "", 405},
		"no route":      {http.MethodGet, "/nope", "", 404},
		"models":        {http.MethodGet, "/models", "", 200},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, url+tc.path, strings.NewReader(tc.body))
			if name == "unknown fault" {
				req.Header.Set(FaultHeader, "gremlins")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || err != nil {
				t.Fatalf("status %d (err %v), want %d", resp.StatusCode, err, tc.status)
			}
			if _, ok := body["error"].(map[string]any); !ok && tc.status != 200 {
				t.Errorf("body %v has no OpenAI error object", body)
			}
		})
	}
}
