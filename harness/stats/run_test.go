package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

func TestSummarize(t *testing.T) {
	base := time.Now()
	ms := time.Millisecond
	ok := func(run string, at, ttft, total time.Duration, tokens int) sample.Sample {
		return sample.Sample{Scenario: "chat", Endpoint: "e", Run: run, Start: base.Add(at), TTFT: ttft, TTFA: ttft, Total: total,
			OutputTokens: tokens, TokenSource: sample.TokensUsage, Chunks: tokens, Finish: "stop"}
	}
	wrong := ok("a", 0, 100*ms, 300*ms, 5)
	wrong.Quality = &sample.Quality{MatchChecked: true, Matched: false, Case: "c1"}
	samples := []sample.Sample{
		{Cold: true, Run: "a", Start: base, TTFT: 900 * ms, Total: time.Second},        // cold: apart
		{Warmup: true, Run: "a", Start: base, TTFT: 5 * time.Second, Total: time.Hour}, // warm-up: excluded
		ok("a", 0, 100*ms, 500*ms, 5),      // tpot 100 ms
		ok("a", 500*ms, 200*ms, 500*ms, 1), // one token: tpot undefined
		wrong,                              // fast but wrong: not good
		ok("b", 10*time.Second, 700*ms, time.Second, 4), // too slow for ttft ≤ 600: not good
		{Run: "b", Start: base.Add(10 * time.Second), Total: 200 * ms, ErrKind: sample.KindRateLimited, Finish: "rate_limited"},
	}
	good := func(s *sample.Sample) bool { return s.TTFT <= 600*ms && s.Quality.Pass() }
	st := Summarize(samples, good)

	require.NotNil(t, st.Cold)
	assert.Equal(t, 900*ms, st.Cold.TTFT)
	assert.Equal(t, 5, st.Attempted)
	assert.Equal(t, 1, st.Failed)
	assert.Equal(t, 1, st.Errors[sample.KindRateLimited])
	assert.Equal(t, 4, st.TTFT.N)
	assert.Equal(t, 3, st.TPOT.N, "tpot undefined for one token, not 0")
	assert.InDelta(t, 50, st.TPOT.Min, 1e-9) // (300 − 100) / 4
	assert.Equal(t, 2, st.Good)
	assert.InDelta(t, 0.4, st.GoodPct, 1e-9, "errors are in the denominator")
	// Windows: run a spans 0 → 1 s, run b 10 s → 11 s: 2 s, not 11 s.
	assert.Equal(t, 2*time.Second, st.Wall)
	assert.InDelta(t, 15.0/2, st.OutTokPerSec, 1e-9)
	assert.InDelta(t, 0.2, st.ErrorRate(), 1e-9)
	assert.InDelta(t, 0.0, st.Quality.AccuracyRate(), 1e-9)
}

// TestPerRunFigures: the figures kept per pooled run — the measured window
// (wall time, the shards' overlap), the rates sent at and scheduled, the
// requests measured (the load warning) — each over its own run, runs
// added up.
func TestPerRunFigures(t *testing.T) {
	base := time.Now()
	ms := time.Millisecond
	mk := func(run, shard string, sched, lag time.Duration) sample.Sample {
		return sample.Sample{Scenario: "chat", Endpoint: "e", Level: "concurrency=4", Run: run, Shard: shard,
			Start: base.Add(sched + lag), Sched: sched, Lag: lag, TTFT: 10 * ms, Total: 50 * ms, OutputTokens: 2, Finish: "stop"}
	}
	// Two shards of one run: p1's window 0.1 s → 0.48 s, p2's 0.3 s → 0.65 s.
	samples := []sample.Sample{
		mk("p1.1", "0/2", 100*ms, 0), mk("p1.1", "0/2", 400*ms, 30*ms), mk("p1.1", "0/2", 200*ms, 50*ms),
		mk("p2.1", "1/2", 300*ms, 0), mk("p2.1", "1/2", 600*ms, 0),
	}
	st := Summarize(samples, nil)
	assert.Equal(t, 550*ms, st.Wall, "the union of the shards' windows")
	assert.InDelta(t, 0.18/0.55, st.Overlap, 1e-9, "their intersection over their union")
	// Sent (t0): p1 3 requests over 0.1 → 0.43 s, p2 2 over 0.3 → 0.6 s: 3 gaps in 0.63 s.
	assert.InDelta(t, 3/0.63, st.Open.Achieved, 1e-9)
	// Scheduled: p1 0.1 → 0.4 s, p2 0.3 → 0.6 s: 3 gaps in 0.6 s.
	assert.InDelta(t, 3/0.6, st.Open.Planned, 1e-9)
	assert.InDelta(t, 5/0.55, st.ReqPerSec, 1e-9)
	require.Len(t, st.Warnings, 1, "runs of 3 and 2 requests at concurrency 4")
	assert.Contains(t, st.Warnings[0], "concurrency=4 with runs of 2 measured requests")
}

// TestBatchWarning: a level labelled batch=8 whose requests carried
// another number of inputs says so beside its figures; one whose
// requests carried 8 says nothing.
func TestBatchWarning(t *testing.T) {
	at := func(inputs ...int) *Stats {
		var ss []sample.Sample
		for i, n := range inputs {
			ss = append(ss, sample.Sample{Level: "batch=8/concurrency=1", Seq: i, Inputs: n, Finish: "stop", Total: time.Millisecond})
		}
		return Summarize(ss, nil)
	}
	assert.Empty(t, at(8, 8, 8).Warnings)
	w := at(8, 3, 8).Warnings
	if assert.Len(t, w, 1) {
		assert.Equal(t, "batch=8/concurrency=1: 1 of 3 requests carried another number of inputs than 8 (3, one of them), so these figures are not of that batch", w[0])
	}
}
