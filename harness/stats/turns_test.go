package stats

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestConversationFigures: a run of conversations is summarised turn by
// turn — TTFT by turn index, the history's fit, the totals of complete
// conversations only, think times kept — and tells complete, failed and
// cut conversations apart; a conversation asks its case once.
func TestConversationFigures(t *testing.T) {
	base := time.Now()
	ms := time.Millisecond
	// turn builds turn k of session id, of turns turns, sent at `at` after
	// a think of `think`: its TTFT is 10 ms + 0.05 ms per prompt token,
	// its history 100 tokens a turn.
	turn := func(id string, k, turns int, at, think time.Duration) sample.Sample {
		tokens := 100 * k
		ttft := 10*ms + time.Duration(tokens)*50*time.Microsecond
		return sample.Sample{Run: "r", Case: id, Session: "r/" + id, Turn: k, Turns: turns, Think: think, Start: base.Add(at),
			TTFT: ttft, Total: ttft + 20*ms, PromptTokens: tokens, Finish: "stop"}
	}
	// a: complete, 3 turns, each 30 ms long, 100 ms think (turn 3 sent 1 ms late).
	a1, a2, a3 := turn("a", 1, 3, 0, 0), turn("a", 2, 3, 0, 100*ms), turn("a", 3, 3, 0, 100*ms)
	a2.Start = a1.End().Add(100 * ms)
	a3.Start = a2.End().Add(101 * ms)
	// b: its second turn failed; c: cut after 2 of 4 turns.
	b1, b2 := turn("b", 1, 3, 0, 0), turn("b", 2, 3, 0, 100*ms)
	b2.Start = b1.End().Add(100 * ms)
	b2.Fail(&sample.RequestError{Kind: sample.KindServerError, Message: "boom"})
	c1, c2 := turn("c", 1, 4, 0, 0), turn("c", 2, 4, 0, 0)
	c2.Start = c1.End()
	warm := turn("w", 1, 2, 0, 0)
	warm.Warmup = true
	// d lacks its middle turn (a file cut or pieced together): not complete.
	d1, d3 := turn("d", 1, 3, 0, 0), turn("d", 3, 3, 0, 0)
	d3.Start = d1.End()
	samples := []sample.Sample{a3, c2, a1, b1, warm, a2, b2, c1, d3, d1} // in any order
	st := Summarize(samples, nil)
	c := st.Conv

	assert.Equal(t, []int{4, 1, 1, 2}, []int{c.Sessions, c.Complete, c.Failed, c.Cut}, "sessions, complete, failed, cut")
	require.Len(t, c.Turns, 3)
	var got []string
	for _, tn := range c.Turns {
		got = append(got, fmt.Sprintf("turn %d: n=%d failed=%d ttft p50 %.0f ms, %.0f tokens", tn.Index, tn.N, tn.Failed, tn.TTFT.P50, tn.PromptTokens.Mean))
	}
	assert.Equal(t, []string{
		"turn 1: n=4 failed=0 ttft p50 15 ms, 100 tokens",
		"turn 2: n=3 failed=1 ttft p50 20 ms, 200 tokens",
		"turn 3: n=2 failed=0 ttft p50 25 ms, 300 tokens",
	}, got)
	assert.InDelta(t, 0.05, c.History.B, 1e-9, "ms per history token")
	assert.InDelta(t, 10, c.History.A, 1e-9)
	assert.Equal(t, 8, c.History.N, "every successful turn with a TTFT and a prompt")
	wantTotal := a3.End().Sub(a1.Start)
	assert.Equal(t, 1, c.Total.N, "complete conversations only")
	assert.InDelta(t, Ms(wantTotal), c.Total.P50, 1e-9, "first t0 to last end, think times included")
	assert.Equal(t, 4, c.ThinkLag.N, "a2, a3, b2 and c2 follow a successful turn (a failed turn was sent, late or not)")
	assert.InDelta(t, 1, c.ThinkLag.Max, 1e-9, "a3 went 1 ms after its think time")
	if tn, ok := c.Turn(3); assert.True(t, ok) {
		assert.Equal(t, 3, tn.Index)
	}
	_, ok := c.Turn(4)
	assert.False(t, ok, "no conversation reached turn 4")
	assert.Equal(t, 1, st.Cases["a"].Asked, "a conversation asks its case once")

	plain := Summarize([]sample.Sample{{Run: "r", Start: base, TTFT: ms, Total: ms, Finish: "stop"}}, nil)
	assert.Zero(t, plain.Conv.Sessions)
	assert.Empty(t, plain.Conv.Turns)
	assert.True(t, math.IsNaN(plain.Conv.Total.P95) && math.IsNaN(plain.Conv.ThinkLag.P95) && math.IsNaN(plain.Conv.History.B),
		"no conversation: not measured, never 0")
}
