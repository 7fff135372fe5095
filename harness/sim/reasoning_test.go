package sim

import (
	"net/http"
	"testing"
	"time"
)

func TestTruthTPOTUndefined(t *testing.T) {
	at := time.Now()
	cases := map[string]struct {
		tr        Truth
		all, answ bool // defined?
	}{
		"no token":            {Truth{}, false, false},
		"one token":           {Truth{OutputTokens: 1, FirstToken: at, FirstAnswer: at, Last: at}, false, false},
		"reasoning, 1 answer": {Truth{OutputTokens: 4, ReasoningTokens: 3, FirstToken: at, FirstAnswer: at, Last: at}, true, false},
		"all reasoning":       {Truth{OutputTokens: 3, ReasoningTokens: 3, FirstToken: at, Last: at}, true, false},
		"two answer tokens":   {Truth{OutputTokens: 2, FirstToken: at, FirstAnswer: at, Last: at}, true, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if _, ok := tc.tr.TPOT(); ok != tc.all {
				t.Errorf("TPOT defined = %v, want %v", ok, tc.all)
			}
			if _, ok := tc.tr.AnswerTPOT(); ok != tc.answ {
				t.Errorf("AnswerTPOT defined = %v, want %v", ok, tc.answ)
			}
		})
	}
}

// TestReasoningTPOT checks that Truth gives both METRICS.md TPOTs of a
// reasoning stream, and that a raw client's reading of the wire agrees.
func TestReasoningTPOT(t *testing.T) {
	cfg := fast()
	cfg.TPOT, cfg.TPOTJitter, cfg.ReasoningTokens, cfg.OutputTokens = 5*time.Millisecond, 0, 4, 6
	srv, url := Start(t, cfg)
	resp, err := post(t, http.DefaultClient, url, streamBody, "")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := readSSE(t, resp.Body, "\n")
	resp.Body.Close()
	s, tr := summarize(t, evs), srv.Truth()[0]
	if tr.OutputTokens != 10 || tr.ReasoningTokens != 4 || s.reasoning != 4 || s.usage != 10 {
		t.Fatalf("truth %d tokens, %d reasoning; wire %d reasoning, usage %d; want 10, 4, 4, 10",
			tr.OutputTokens, tr.ReasoningTokens, s.reasoning, s.usage)
	}
	all, okAll := tr.TPOT()
	answer, okAnswer := tr.AnswerTPOT()
	if !okAll || !okAnswer {
		t.Fatal("TPOT undefined for a 10-token stream")
	}
	clientAll := s.last.Sub(s.firstToken) / 9
	clientAnswer := s.last.Sub(s.firstAnswer) / 5
	for _, x := range []struct {
		what           string
		server, client time.Duration
	}{{"over all tokens", all, clientAll}, {"over the answer", answer, clientAnswer}} {
		// Tokens are due every TPOT and the end right after the last one.
		// Lateness mostly stretches the gaps, but a late first stamp
		// shortens the span after it by as much, over 5 or 9 gaps.
		if x.server < cfg.TPOT-time.Millisecond || x.server > cfg.TPOT+2*time.Millisecond {
			t.Errorf("truth TPOT %s = %v, want about %v", x.what, x.server, cfg.TPOT)
		}
		if (x.client - x.server).Abs() > 2*time.Millisecond {
			t.Errorf("client TPOT %s = %v, truth %v", x.what, x.client, x.server)
		}
	}
	// The schedule never runs early: the first answer token is due 4 TPOT
	// after the first token was due.
	if d := tr.FirstAnswer.Sub(tr.Received.Add(tr.QueueWait + tr.TTFTDelay)); d < 4*cfg.TPOT {
		t.Errorf("first answer %v after the first token was due, want at least 4 TPOT", d)
	}

	// The same request, not streamed: the counts are recorded alike.
	resp, err = post(t, http.DefaultClient, url, plainBody, "")
	if err != nil {
		t.Fatal(err)
	}
	rawBody(t, resp, 1<<20)
	if tr := srv.Truth()[1]; tr.OutputTokens != 10 || tr.ReasoningTokens != 4 {
		t.Errorf("non-stream truth %d tokens, %d reasoning; want 10, 4", tr.OutputTokens, tr.ReasoningTokens)
	}
}

// TestUsageOff: usage is off by the spec's tokens on its share of the
// requests, exactly those the truth marks, and the stream is untouched.
func TestUsageOff(t *testing.T) {
	cfg, err := ParseSpec("ttft=0s,tpot=0s,tokens=6,usage_off=5:0.1")
	if err != nil {
		t.Fatal(err)
	}
	srv, url := Start(t, cfg)
	const n = 100
	var wire []summary
	for range n {
		resp, err := post(t, http.DefaultClient, url, streamBody, "")
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := readSSE(t, resp.Body, "\n")
		resp.Body.Close()
		wire = append(wire, summarize(t, evs))
	}
	off := 0
	for i, tr := range srv.Truth() {
		if w := wire[i]; w.tokens != 6 || tr.OutputTokens != 6 || w.usage-w.tokens != tr.UsageOff || (tr.UsageOff != 0 && tr.UsageOff != 5) {
			t.Errorf("request %d: %d tokens streamed, usage %d, truth %d tokens off by %d", i, w.tokens, w.usage, tr.OutputTokens, tr.UsageOff)
		}
		off += btoi(tr.UsageOff != 0)
	}
	if off < 2 || off > 22 { // about 4 standard deviations around 10
		t.Errorf("%d of %d requests off, want about 10", off, n)
	}
}
