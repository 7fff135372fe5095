package stats

import (
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Tools are the figures of tool calls and agent loops (METRICS.md), over
// the measured samples of a run: ttftool and tool_done over the
// successful requests that called tools; over the agent loops (the steps
// of a session), agent_total — the first step's t0 to the final answer's
// end, for the loops that gave one — and how many steps each took.
type Tools struct {
	TTFTool, ToolDone Summary // ms
	AgentTotal        Summary // ms
	Steps             Summary // steps per loop, every loop
	// Loops counts the agent loops; Unfinished those that ended without
	// a final answer (a step failed, max_steps was reached, or a call
	// named a tool the case has no result for), outside AgentTotal.
	Loops, Unfinished int
}

// agentLoop is what summarizeTools keeps of one loop.
type agentLoop struct {
	first, end time.Time
	steps      int
	last       *sample.Sample // the highest step
}

func summarizeTools(samples []sample.Sample) Tools {
	var ttftool, done []float64
	loops := map[string]*agentLoop{}
	var order []string
	for i := range samples {
		s := &samples[i]
		if !s.Measured() {
			continue
		}
		if s.OK() && s.TTFTool > 0 {
			ttftool = append(ttftool, Ms(s.TTFTool))
		}
		if s.OK() && s.ToolDone > 0 {
			done = append(done, Ms(s.ToolDone))
		}
		if s.Session == "" || s.Step == 0 {
			continue
		}
		l := loops[s.Session]
		if l == nil {
			l = &agentLoop{first: s.Start, end: s.End(), last: s}
			loops[s.Session] = l
			order = append(order, s.Session)
		}
		l.steps++
		if s.Start.Before(l.first) {
			l.first = s.Start
		}
		if s.End().After(l.end) {
			l.end = s.End()
		}
		if s.Step > l.last.Step {
			l.last = s
		}
	}
	t := Tools{TTFTool: Describe(ttftool), ToolDone: Describe(done), Loops: len(loops)}
	var totals, steps []float64
	for _, id := range order {
		l := loops[id]
		steps = append(steps, float64(l.steps))
		// A loop with a step missing (a file cut short) or whose last
		// step failed or still called tools gave no final answer.
		if l.last.Step != l.steps || !l.last.OK() || len(l.last.ToolCalls) > 0 {
			t.Unfinished++
			continue
		}
		totals = append(totals, Ms(l.end.Sub(l.first)))
	}
	t.AgentTotal, t.Steps = Describe(totals), Describe(steps)
	return t
}
