package ollama

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestOllamaChatStreams runs Chat against canned /api/chat streams, for the
// cases the real server will not produce on demand.
func TestOllamaChatStreams(t *testing.T) {
	const done = `{"message":{"content":""},"done":true,"done_reason":"stop","load_duration":5000000,` +
		`"prompt_eval_count":3,"prompt_eval_duration":2000000,"eval_count":2,"eval_duration":4000000,"total_duration":12000000}`
	cases := map[string]struct {
		status     int
		body       string
		wantErr    error  // errors.Is
		wantErrMsg string // or a substring
		wantChunks int
		wantServer Timings
	}{
		"ok, empty first chunk is not a token": {
			body:       `{"message":{"role":"assistant","content":""}}` + "\n" + `{"message":{"content":"a"}}` + "\n" + `{"message":{"content":"b"}}` + "\n" + done + "\n",
			wantChunks: 2,
			wantServer: Timings{Load: 5 * time.Millisecond, PromptEval: 2 * time.Millisecond, PromptN: 3, Eval: 4 * time.Millisecond, EvalN: 2, Total: 12 * time.Millisecond},
		},
		"no done chunk":  {body: `{"message":{"content":"a"}}` + "\n", wantErr: sample.ErrTruncated, wantChunks: 1},
		"error mid-way":  {body: `{"message":{"content":"a"}}` + "\n" + `{"error":"runner crashed"}` + "\n", wantErrMsg: "runner crashed", wantChunks: 1},
		"not found":      {status: http.StatusNotFound, body: `{"error":"model \"x\" not found"}`, wantErrMsg: "HTTP 404"},
		"garbage stream": {body: "<html>", wantErrMsg: "stream"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/chat" {
					http.NotFound(w, r)
					return
				}
				if tc.status != 0 {
					w.WriteHeader(tc.status)
				}
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			r, err := Chat(context.Background(), srv.URL, ChatRequest{Model: "x"})
			switch {
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr),
				tc.wantErrMsg != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErrMsg)),
				tc.wantErr == nil && tc.wantErrMsg == "" && err != nil:
				t.Fatalf("err %v, want %v %q", err, tc.wantErr, tc.wantErrMsg)
			}
			if r.Chunks != tc.wantChunks || r.Server != tc.wantServer {
				t.Errorf("chunks %d, server %+v; want %d, %+v", r.Chunks, r.Server, tc.wantChunks, tc.wantServer)
			}
			if r.Chunks > 0 && !(r.TTFT > 0 && r.TTFT <= r.Total) {
				t.Errorf("ttft %v, total %v", r.TTFT, r.Total)
			}
		})
	}
}

func TestOllamaBreakdownArithmetic(t *testing.T) {
	ms := time.Millisecond
	cases := map[string]struct {
		in   ChatResult
		want Split
	}{
		"typical": {
			in: ChatResult{TTFT: 30 * ms, Total: 130 * ms, Chunks: 11,
				Server: Timings{Load: 20 * ms, PromptEval: 7 * ms, EvalN: 11, Eval: 110 * ms}},
			want: Split{TTFT: 30 * ms, Load: 20 * ms, Prefill: 7 * ms, NetworkQueue: 3 * ms,
				ClientDecodeRate: 100, ClientDecodeOK: true, ServerDecodeRate: 100, ServerDecodeOK: true},
		},
		"one chunk: client rate undefined, counts differ": {
			in: ChatResult{TTFT: 10 * ms, Total: 10 * ms, Chunks: 1,
				Server: Timings{PromptEval: 4 * ms, EvalN: 2, Eval: 20 * ms}},
			want: Split{TTFT: 10 * ms, Prefill: 4 * ms, NetworkQueue: 6 * ms,
				ServerDecodeRate: 100, ServerDecodeOK: true, CountMismatch: true},
		},
		"nothing measured": {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Breakdown(tc.in); got != tc.want {
				t.Errorf("Breakdown:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
