package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestAgentLoops: a loop's end-to-end time is its first step's t0 to its
// final answer's end, over the loops that gave one; a loop stopped by
// max_steps, an error or a missing step is counted, but has no total.
func TestAgentLoops(t *testing.T) {
	base := time.Now()
	ms := time.Millisecond
	step := func(session string, k int, at, total time.Duration, called bool) sample.Sample {
		s := sample.Sample{Session: session, Step: k, Start: base.Add(at), TTFT: 10 * ms, Total: total, Finish: "stop"}
		if called {
			s.Finish, s.TTFTool, s.ToolDone = "tool_calls", 10*ms, total
			s.ToolCalls = []sample.ToolCall{{Name: "f", Arguments: "{}"}}
		}
		return s
	}
	failed := step("err", 2, 100*ms, 5*ms, false)
	failed.Fail(&sample.RequestError{Kind: sample.KindServerError, Status: 500})
	samples := []sample.Sample{
		step("done", 1, 0, 40*ms, true), step("done", 2, 41*ms, 30*ms, true), step("done", 3, 72*ms, 50*ms, false), // 0 → 122 ms
		step("max", 1, 0, 40*ms, true), step("max", 2, 41*ms, 40*ms, true), // still calling: unfinished
		step("err", 1, 0, 40*ms, true), failed,
		step("gap", 1, 0, 40*ms, true), step("gap", 3, 90*ms, 40*ms, false), // step 2 missing
		{Cold: true, Session: "cold", Step: 1, Start: base, Total: time.Hour},
		{Start: base, TTFT: 10 * ms, Total: 20 * ms, Finish: "stop"}, // no loop
	}
	st := Summarize(samples, nil)
	tl := st.Tools
	assert.Equal(t, 4, tl.Loops, "the cold request is no loop")
	assert.Equal(t, 3, tl.Unfinished)
	assert.Equal(t, 1, tl.AgentTotal.N)
	assert.InDelta(t, 122, tl.AgentTotal.P50, 1e-9)
	assert.Equal(t, 3.0, tl.Steps.Max)
	assert.Equal(t, 6, tl.TTFTool.N, "every successful step that called")
	assert.InDelta(t, 10, tl.TTFTool.P95, 1e-9)
}
