package session

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
)

// measureTools sends n requests (or loops) of the fixture at concurrency
// conc on the simulator of spec, with no warm-up, and returns the
// measured samples, the simulator's truth by response id, and the verdict
// under the tools preset.
func measureTools(t *testing.T, spec, fixture string, conc, n int) ([]sample.Sample, map[string]sim.Truth, objective.Verdict) {
	t.Helper()
	s, cfg := simSession(t, spec)
	sc := Scenario{Name: "tools", Fixture: fixture}
	src, err := s.Source(sc)
	require.NoError(t, err)
	conf := cfg.Scenario(sc.Name, "sim")
	conf.Warmup = 0
	samples, err := s.Measure(context.Background(), Cell{Scenario: sc.Name, Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(conc)}, Fixture: src}, n)
	require.NoError(t, err)
	truth := map[string]sim.Truth{}
	for _, tr := range s.Sim("sim").Truth() {
		truth[tr.ID] = tr
	}
	return samples, truth, objective.Judge(samples, conf.Objectives)
}

// TestToolQualityEqualsSimulatorTruth: the simulator answers the tools
// fixture with 20% wrong arguments and 10% arguments that are not JSON,
// and records which; request by request, tool_valid is false exactly for
// the broken ones and tool_match exactly for the wrong or broken ones, and
// the run's rates are the truth's, its verdict naming both objectives.
func TestToolQualityEqualsSimulatorTruth(t *testing.T) {
	samples, truth, v := measureTools(t, "ttft=1ms,tpot=0s,tool_wrong=0.2,tool_badjson=0.1,seed=5", "fixtures/tools.jsonl", 4, 200)
	var wrong, broken, bad int
	for _, smp := range samples {
		require.True(t, smp.OK(), smp.Err)
		require.NotNil(t, smp.Quality)
		tr, ok := truth[smp.ID]
		require.True(t, ok)
		q := smp.Quality
		if !smp.Measured() {
			continue
		}
		wrong += btoi(tr.ToolWrong)
		broken += btoi(tr.ToolBadJSON)
		bad += btoi(tr.ToolWrong || tr.ToolBadJSON)
		assert.True(t, q.ToolChecked && q.ToolMatchChecked, "case %s: a tool case's answer is judged as calls", smp.Case)
		assert.Equal(t, !tr.ToolBadJSON, q.ToolValid, "case %s: tool valid (broken=%v): %s", smp.Case, tr.ToolBadJSON, q.ToolError)
		assert.Equal(t, !tr.ToolWrong && !tr.ToolBadJSON, q.ToolMatched, "case %s: tool matched (wrong=%v broken=%v): got %s", smp.Case, tr.ToolWrong, tr.ToolBadJSON, q.Got)
	}
	st := v.Stats
	n := float64(st.Attempted)
	t.Logf("n=%d wrong=%d broken=%d tool valid %.3f match %.3f good %.3f", st.Attempted, wrong, broken,
		st.Quality.ToolValidRate(), st.Quality.ToolMatchRate(), st.GoodPct)
	assert.Greater(t, wrong, 20, "the injected rate shows up")
	assert.Greater(t, broken, 5)
	assert.InDelta(t, 1-float64(broken)/n, st.Quality.ToolValidRate(), 1e-9)
	assert.InDelta(t, 1-float64(bad)/n, st.Quality.ToolMatchRate(), 1e-9)
	assert.InDelta(t, st.Quality.ToolMatchRate(), st.GoodPct, 1e-9, "with latency met, good = the expected call")
	var keys []string
	for _, viol := range v.Violations {
		keys = append(keys, viol.Threshold.Key())
	}
	assert.Contains(t, keys, "tool_valid_min")
	assert.Contains(t, keys, "tool_match_min")
	assert.NotEmpty(t, st.WorstCases(5), "the failing cases are named")
}

// TestAgentLoopEqualsSimulatorTruth: each loop of the agent fixture (two
// tool steps and a final answer, or one and the answer) is sent step by
// step — each step a sample of its loop's session, answering the agent
// step the simulator counted from the turn the harness sent back — and
// timed step by step and end to end against the simulator's truth.
func TestAgentLoopEqualsSimulatorTruth(t *testing.T) {
	samples, truth, v := measureTools(t, "ttft=20ms,tpot=2ms,jitter=0.2,seed=3", "fixtures/agent.jsonl", 2, 8)
	loops := map[string][]sample.Sample{}
	var endErr, toolErr []float64
	for _, smp := range samples {
		require.True(t, smp.OK(), smp.Err)
		if !smp.Measured() {
			continue // cold and warm-up: a loop's first step alone
		}
		tr, ok := truth[smp.ID]
		require.True(t, ok)
		require.NotEmpty(t, smp.Session)
		assert.Equal(t, smp.Step, tr.ToolStep, "%s step %d: the simulator answered agent step %d", smp.Session, smp.Step, tr.ToolStep)
		assert.Equal(t, len(tr.ToolCalls), len(smp.ToolCalls), "%s step %d: calls", smp.Session, smp.Step)
		for k := range min(len(tr.ToolCalls), len(smp.ToolCalls)) {
			assert.Equal(t, tr.ToolCalls[k].Arguments, smp.ToolCalls[k].Arguments)
		}
		assert.True(t, smp.Quality.Pass(), "%s step %d: %s", smp.Session, smp.Step, smp.Quality.Detail)
		loops[smp.Session] = append(loops[smp.Session], smp)
		endErr = append(endErr, stats.Ms(smp.End().Sub(tr.Last)))
		if len(smp.ToolCalls) > 0 {
			toolErr = append(toolErr, stats.Ms(smp.Start.Add(smp.TTFTool).Sub(tr.FirstTool)), stats.Ms(smp.Start.Add(smp.ToolDone).Sub(tr.ToolDone)))
		}
	}
	require.Len(t, loops, 8, "8 loops, each its own session")
	var totalErr []float64
	for id, steps := range loops {
		slices.SortFunc(steps, func(a, b sample.Sample) int { return a.Step - b.Step })
		last := steps[len(steps)-1]
		assert.Empty(t, last.ToolCalls, "%s ends with the final answer", id)
		assert.Equal(t, len(steps), last.Step, "%s: steps 1 to %d", id, len(steps))
		assert.Contains(t, []int{2, 3}, len(steps), "%s: its tool steps and the final answer", id)
		first := truth[steps[0].ID]
		got := last.End().Sub(steps[0].Start)
		want := truth[last.ID].Last.Sub(first.Received)
		totalErr = append(totalErr, stats.Ms(got-want))
	}
	st := v.Stats
	assert.Equal(t, 8, st.Tools.Loops)
	assert.Zero(t, st.Tools.Unfinished)
	assert.Equal(t, 3.0, st.Tools.Steps.Max)
	assert.Equal(t, 8, st.Tools.AgentTotal.N)
	assert.Equal(t, 1.0, st.Quality.AccuracyRate(), "every final answer right")
	for name, errs := range map[string][]float64{"step end": endErr, "ttftool and tool_done": toolErr, "agent total": totalErr} {
		d := stats.Describe(errs)
		t.Logf("%s error p50 %.3f p90 %.3f max %.3f ms (n=%d)", name, d.P50, d.P90, d.Max, d.N)
		// Loopback and the client's reading: well under a millisecond at
		// the median; the loop's adds its first request's trip to the
		// server (t0 → the handler's entry).
		assert.Less(t, math.Abs(d.P50), 1.0, "%s: median error", name)
		assert.Less(t, d.P90, 5.0, "%s: p90 error", name)
	}
	assert.Equal(t, 2*(3+3+3+2), st.Attempted, "every step of the 8 loops a measured sample")

	// The loop's objectives: met with room, violated when tighter than
	// what the loops took.
	loose := objective.Judge(samples, objective.MustParse(map[string]float64{"agent_steps_max": 3, "agent_total_p95_ms": 10000}))
	assert.Empty(t, loose.Violations)
	tight := objective.Judge(samples, objective.MustParse(map[string]float64{"agent_steps_max": 2, "agent_total_p95_ms": 1}))
	var keys []string
	for _, viol := range tight.Violations {
		keys = append(keys, viol.Threshold.Key())
	}
	assert.ElementsMatch(t, []string{"agent_steps_max", "agent_total_p95_ms"}, keys, "%v", tight.Violations)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
