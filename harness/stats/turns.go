package stats

import (
	"slices"

	"github.com/llmsla/llmsla/harness/sample"
)

// Conversations is what a run of conversations adds to its figures
// (METRICS.md: session, turn, session_total): TTFT turn by turn, TTFT
// against the tokens of the history, each conversation's total time, and
// how closely the think times were kept. Sessions is 0 for a run of
// single requests.
type Conversations struct {
	// Turns[k] is turn k+1 over every conversation that reached it.
	Turns []Turn
	// History is the fit ttft = A + B · prompt tokens over every turn
	// (a turn's prompt is the whole history so far), as the prefill fit
	// fits a sweep: how much each token of history adds to the TTFT.
	History Fit
	// Total is session_total in ms — the first turn's t0 to the last
	// turn's end, think times included — over complete conversations.
	Total Summary
	// Sessions counts the conversations; Complete those that sent every
	// turn with success, Failed those a failed turn ended, Cut those the
	// run's count (or its duration) ended before their last turn.
	Sessions, Complete, Failed, Cut int
	// ThinkLag is t0 − (the previous answer's end + the think time) in ms
	// over the turns after the first: how late the client sent a turn once
	// its user had thought.
	ThinkLag Summary
}

// Turn is one turn index of a run's conversations.
type Turn struct {
	Index     int // from 1
	N, Failed int
	// TTFT in ms over successful requests; PromptTokens over those with a
	// count: the history each was sent with.
	TTFT, PromptTokens Summary
}

// conversations summarises the turns of samples, the measured requests
// of a run; warm-up and cold ones are left out.
func conversations(samples []sample.Sample) Conversations {
	// Not measured until a conversation says otherwise: NaN, never a 0
	// that would read as a session of no time.
	c := Conversations{Total: Describe(nil), ThinkLag: Describe(nil), History: LinearFit(nil)}
	bySession := map[string][]*sample.Sample{}
	var order []string
	for i := range samples {
		s := &samples[i]
		if s.Session == "" || s.Turn == 0 || !s.Measured() {
			continue
		}
		if _, ok := bySession[s.Session]; !ok {
			order = append(order, s.Session)
		}
		bySession[s.Session] = append(bySession[s.Session], s)
	}
	if len(order) == 0 {
		return c
	}
	var turns turnValues
	var totals, lags []float64
	var pts []Point
	for _, id := range order {
		ss := bySession[id]
		slices.SortFunc(ss, func(a, b *sample.Sample) int { return a.Turn - b.Turn })
		c.Sessions++
		failed := false
		for i, s := range ss {
			turns.add(s)
			failed = failed || !s.OK()
			if s.OK() && s.TTFT > 0 && s.PromptTokens > 0 {
				pts = append(pts, Point{float64(s.PromptTokens), Ms(s.TTFT)})
			}
			if i > 0 && ss[i-1].Turn == s.Turn-1 && ss[i-1].OK() {
				lags = append(lags, Ms(s.Start.Sub(ss[i-1].End().Add(s.Think))))
			}
		}
		last := ss[len(ss)-1]
		switch {
		case failed:
			c.Failed++
		case len(ss) == last.Turns && last.Turn == last.Turns:
			c.Complete++
			totals = append(totals, Ms(last.End().Sub(ss[0].Start)))
		default:
			c.Cut++
		}
	}
	c.Turns, c.History = turns.summaries(), LinearFit(pts)
	c.Total, c.ThinkLag = Describe(totals), Describe(lags)
	return c
}

// turnValues gathers the values of each turn index.
type turnValues struct {
	n, failed          []int
	ttft, promptTokens [][]float64
}

func (tv *turnValues) add(s *sample.Sample) {
	for len(tv.n) < s.Turn {
		tv.n, tv.failed = append(tv.n, 0), append(tv.failed, 0)
		tv.ttft, tv.promptTokens = append(tv.ttft, nil), append(tv.promptTokens, nil)
	}
	k := s.Turn - 1
	tv.n[k]++
	if !s.OK() {
		tv.failed[k]++
		return
	}
	if s.TTFT > 0 {
		tv.ttft[k] = append(tv.ttft[k], Ms(s.TTFT))
	}
	if s.PromptTokens > 0 {
		tv.promptTokens[k] = append(tv.promptTokens[k], float64(s.PromptTokens))
	}
}

func (tv *turnValues) summaries() []Turn {
	out := make([]Turn, len(tv.n))
	for k := range tv.n {
		out[k] = Turn{Index: k + 1, N: tv.n[k], Failed: tv.failed[k], TTFT: Describe(tv.ttft[k]), PromptTokens: Describe(tv.promptTokens[k])}
	}
	return out
}

// Turn returns the figures of turn index t (from 1); ok is false when no
// conversation reached it.
func (c Conversations) Turn(t int) (Turn, bool) {
	if t < 1 || t > len(c.Turns) || c.Turns[t-1].N == 0 {
		return Turn{}, false
	}
	return c.Turns[t-1], true
}
