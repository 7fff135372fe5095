// Package sequential stops a level as soon as its objectives are decided
// (stop: decided): an observer that, after each measured request, updates
// the confidence sequence of each objective (objective.Sequence) and,
// once every one is on one side of its threshold — or one is on the bad
// side, which fails the level whatever the rest — tells the session the
// level is decided (observe.Level.Decided), and the runner sends no more
// (load.Until). The runs of a series (a benchmark's -count repetitions of
// a level, observe.Series) share one tally: once their requests pooled
// decide, the runs left send nothing.
//
// A latency percentile p is decided by the requests at or under its
// threshold T: the p-th percentile is under T exactly when more than p%
// of requests are, so the sequence of that rate decides it; a fraction
// (error_rate_max, accuracy_min) by its own rate. Each decision is wrong
// with probability at most objective.Alpha, however often it is looked
// at. A level with an objective no request can decide (a server's figure,
// a turn's, a judged one, whose answers are judged after the level) is
// never decided early: it sends its count, fail closed. So is one below
// its floor: the warm-up done and every fixture case asked.
package sequential

import (
	"context"
	"sync"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
)

// Tally is one level's evidence: each objective's count of requests on
// its good side and of requests behind it, and the level's measured
// requests. It is the decision alone, usable without a session (the
// simulations of docs/gate.md feed it samples).
type Tally struct {
	floor      int
	qualityOff bool
	measured   int
	blocked    []objective.Threshold // objectives no request decides
	tracks     []track
}

type track struct {
	th   objective.Threshold
	k, n int // requests that count toward it, of which k are "good" or "bad" as its rate reads
}

// NewTally returns the tally of a level judged against o, which may stop
// after floor measured requests; qualityOff drops the quality minimums a
// check implies (quality: off, a trace's rows).
func NewTally(o objective.Objectives, floor int, qualityOff bool) *Tally {
	t := &Tally{floor: floor, qualityOff: qualityOff}
	for _, th := range o {
		switch {
		case th.WholeRun && th.K == 0:
			// coverage_min: every case is asked by the floor.
		case decidable(th) && !(qualityOff && objective.Minimums.Has(th.Name)):
			t.tracks = append(t.tracks, track{th: th})
		case qualityOff && objective.Minimums.Has(th.Name):
			// not judged: Judge drops it too
		default:
			t.blocked = append(t.blocked, th)
		}
	}
	return t
}

// decidable reports whether one request at a time decides th: a latency
// bound read per request, or a fraction with an outcome per request, of
// the whole level. A judged fraction is judged after the level ends.
func decidable(th objective.Threshold) bool {
	if th.Turn > 0 || th.Name == "judge_pass" {
		return false
	}
	switch th.Kind {
	case metric.Latency:
		return th.PerRequest != nil && th.Lower
	case metric.Fraction:
		return th.Outcome != nil
	}
	return false
}

// Add counts one measured request.
func (t *Tally) Add(s *sample.Sample) {
	t.measured++
	if !t.qualityOff {
		// The minimums a check implies, from the first request it ran on
		// (objective.Objectives.Implied).
		for _, th := range objective.Minimums {
			if th.Outcome == nil || t.has(th.Name) || th.Name == "judge_pass" {
				continue
			}
			if checked, _ := th.Outcome(s); checked {
				t.tracks = append(t.tracks, track{th: th})
			}
		}
	}
	for i := range t.tracks {
		tr := &t.tracks[i]
		th := tr.th
		switch th.Kind {
		case metric.Latency:
			if v, ok := th.PerRequest(s); ok {
				tr.n++
				if v <= th.Value {
					tr.k++
				}
			}
		case metric.Fraction:
			if checked, passed := th.Outcome(s); checked {
				tr.n++
				if passed != th.Lower { // a Lower fraction counts the failures
					tr.k++
				}
			}
		}
	}
}

func (t *Tally) has(name string) bool {
	for _, tr := range t.tracks {
		if tr.th.Name == name {
			return true
		}
	}
	for _, th := range t.blocked {
		if th.Name == name {
			return true
		}
	}
	return false
}

// State is where th stands by its sequence.
func (tr track) state() objective.State {
	th := tr.th
	p0 := th.Value
	if th.Kind == metric.Latency {
		p0 = float64(th.P) / 100
	}
	d := objective.Sequence.Decide(tr.k, tr.n, p0)
	if th.Kind == metric.Fraction && th.Lower {
		d = -d // the rate of failures is above its bound: missed
	}
	switch d {
	case 1:
		return objective.Met
	case -1:
		return objective.Missed
	}
	return objective.Undecided
}

// Measured is the requests counted.
func (t *Tally) Measured() int { return t.measured }

// Decided reports whether the level may stop: past its floor, with
// nothing blocking a decision, and every objective met or one missed.
// State says which.
func (t *Tally) Decided() bool {
	if t.measured < t.floor || len(t.blocked) > 0 || len(t.tracks) == 0 {
		return false
	}
	all := true
	for _, tr := range t.tracks {
		switch tr.state() {
		case objective.Missed:
			return true
		case objective.Undecided:
			all = false
		}
	}
	return all
}

// Blocked are the objectives that keep the level from stopping early.
func (t *Tally) Blocked() objective.Objectives { return t.blocked }

// Observer follows the levels that may stop early (observe.Level.Decided
// set) and calls Decided once their tally is.
type Observer struct {
	observe.Nop
	objectives objective.Lookup
	mu         sync.Mutex
	levels     map[*observe.Level]*level
	// series are the tallies of levels whose runs decide together
	// (observe.Level.Series), kept from one run to the next.
	series map[*observe.Series]*level
}

type level struct {
	mu      sync.Mutex
	tally   *Tally
	decided bool
}

// New returns the observer; objectives are each scenario's on an
// endpoint.
func New(objectives objective.Lookup) *Observer {
	return &Observer{objectives: objectives, levels: map[*observe.Level]*level{}, series: map[*observe.Series]*level{}}
}

// LevelStart begins a tally for a level that may stop early — or, for a
// run of a series, goes on with the series' — not for a probe, nor a
// level whose answers an amender (the judge) changes after it ends: what
// decides it is not known while it runs.
func (o *Observer) LevelStart(_ context.Context, lv *observe.Level) {
	if lv.Decided == nil || lv.Probe || lv.Held {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if l := o.series[lv.Series]; l != nil {
		o.levels[lv] = l
		return
	}
	l := &level{tally: NewTally(o.objectives(lv.Scenario, lv.Endpoint), lv.Floor, lv.QualityOff || lv.Sourced)}
	o.levels[lv] = l
	if lv.Series != nil {
		o.series[lv.Series] = l
	}
}

// Sample counts a measured request and says when the level is decided.
func (o *Observer) Sample(lv *observe.Level, s *sample.Sample) {
	if s.Warmup || s.Cold {
		return
	}
	o.mu.Lock()
	l := o.levels[lv]
	o.mu.Unlock()
	if l == nil {
		return
	}
	l.mu.Lock()
	l.tally.Add(s)
	fire := !l.decided && l.tally.Decided()
	l.decided = l.decided || fire
	l.mu.Unlock()
	if fire {
		lv.Decided()
	}
}

// LevelEnd forgets the level (a series' tally is kept for its next run).
func (o *Observer) LevelEnd(_ context.Context, lv *observe.Level, _ []sample.Sample) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.levels, lv)
}

// Least is the fewest measured requests that decide every objective of
// o, each as early as it can be — every request on its good side (a p95
// of 600 ms: every request under 600 ms, 78 of them; an error rate of
// 1%: no error in 323) — and the objective that needs the most: what a
// plan expects of a level whose endpoint is far within its objectives.
// ok is false when an objective of o cannot be decided request by
// request: the level sends its count.
func Least(o objective.Objectives) (n int, needs objective.Threshold, ok bool) {
	for _, th := range o {
		if th.WholeRun && th.K == 0 {
			continue
		}
		if !decidable(th) {
			return 0, th, false
		}
		if k := leastOf(th); k > n {
			n, needs = k, th
		}
	}
	return n, needs, true
}

// leastOf is the fewest requests that decide th met, all on its good side.
func leastOf(th objective.Threshold) int {
	t := NewTally(objective.Objectives{th}, 0, false)
	tr := &t.tracks[0]
	for tr.n < maxLeast {
		tr.n++
		if th.Kind == metric.Latency || !th.Lower {
			tr.k++
		}
		if tr.state() == objective.Met {
			return tr.n
		}
	}
	return maxLeast
}

// maxLeast bounds Least's search: beyond it, a count is the ceiling.
const maxLeast = 1 << 14
