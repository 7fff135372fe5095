package suites

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/ollama/ollamatest"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
)

// TestOllamaConversation plays the conversation scenario against the real
// Ollama, one conversation at a time (Ollama serves one request at a
// time): the tiny model answers gibberish, so what is tested is the
// plumbing — every turn sent, with the model's own replies in its history
// (the server's prompt_tokens grow turn by turn), over one connection, no
// sooner than its think time after the last answer — and per-turn timings
// within the SLA of the other Ollama scenarios.
func TestOllamaConversation(t *testing.T) {
	srv := ollamatest.Shared(t)
	cfg := ollamaConfig(t, srv)
	slow := pace(t, srv)
	cfg.Scenarios["conversation"] = config.Scenario{Samples: 12, Loads: []load.Pacer{load.Sessions(1)}, Warmup: 1, MaxTokens: 16, Seed: 3,
		Objectives: objective.MustParse(map[string]float64{"ttft_p95_ms": 3000 * slow, "total_p95_ms": 8000 * slow,
			"error_rate_max": 0, "accuracy_min": 0}), // said out loud: the random-weight model answers gibberish
	}
	samplesPath := filepath.Join(t.TempDir(), "samples.jsonl")
	sess, err := session.New(cfg, session.Run{}, session.Options{Samples: samplesPath})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	vs := harness.RunOn(t, sess, deterministic(conversation))
	sess.Close() // flush the samples file
	samples, err := sample.Read(samplesPath)
	if err != nil {
		t.Fatal(err)
	}
	var turns []sample.Sample
	for _, s := range samples {
		if s.Measured() {
			turns = append(turns, s)
		}
	}
	if len(turns) != 12 {
		t.Fatalf("%d measured turns, want the 12 asked", len(turns))
	}
	later := 0
	for i, s := range turns {
		if !s.OK() || s.TokenSource != sample.TokensUsage || s.PromptTokens == 0 || s.TTFT <= 0 {
			t.Fatalf("turn %d of %s: %s, %d prompt tokens from %q, ttft %v: want a timed success with the server's usage", s.Turn, s.Session, s.Err, s.PromptTokens, s.TokenSource, s.TTFT)
		}
		if s.Turn == 1 {
			continue
		}
		later++
		prev := turns[i-1]
		if prev.Session != s.Session || prev.Turn != s.Turn-1 {
			t.Fatalf("turn %d of %s follows turn %d of %s", s.Turn, s.Session, prev.Turn, prev.Session)
		}
		if s.PromptTokens <= prev.PromptTokens+prev.OutputTokens {
			t.Errorf("turn %d of %s: %d prompt tokens, want more than the last turn's %d and its %d-token answer: the history did not grow",
				s.Turn, s.Session, s.PromptTokens, prev.PromptTokens, prev.OutputTokens)
		}
		if !s.Reused {
			t.Errorf("turn %d of %s: a new connection; a conversation keeps its own", s.Turn, s.Session)
		}
		if gap := s.Start.Sub(prev.End()); gap < s.Think || gap > s.Think+time.Duration(slow*float64(time.Second)) {
			t.Errorf("turn %d of %s: sent %v after the last answer, think %v: want no sooner, and not a second later", s.Turn, s.Session, gap, s.Think)
		}
	}
	if later < 6 {
		t.Errorf("%d later turns of 12: the conversations were not played turn by turn", later)
	}
	c := vs[0].Stats.Conv
	if len(c.Turns) < 3 || c.Turns[2].N == 0 || c.History.N != 12 {
		t.Errorf("turns %+v, history fit n=%d: want ttft by turn to turn 3 at least, and every turn in the fit", c.Turns, c.History.N)
	}
	for _, tn := range c.Turns {
		t.Logf("turn %d: ttft p50 %.1f ms (n=%d), %.0f prompt tokens", tn.Index, tn.TTFT.P50, tn.N, tn.PromptTokens.Mean)
	}
}
