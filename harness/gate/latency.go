package gate

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// latencyFig is a latency percentile judged per request.
type latencyFig struct {
	unit string
	p    int
	read func(*sample.Sample) (float64, bool)
}

func latencyFigs() []latencyFig {
	var out []latencyFig
	for _, f := range metric.Units() {
		if f.Kind != metric.Latency || f.PerRequest == nil {
			continue
		}
		read := f.PerRequest
		out = append(out, latencyFig{unit: f.Unit(), p: f.P, read: func(s *sample.Sample) (float64, bool) {
			if !s.OK() {
				return 0, false
			}
			return read(s)
		}})
	}
	return out
}

// LevelChange is a latency percentile at one level on each side.
type LevelChange struct {
	Level    sample.Level
	Old, New float64
	N1, N2   int // requests
}

// latencyFamily runs the rank test of every latency figure on every group,
// each figure's drift pooled over the groups (inference.PoolDrift).
func latencyFamily(rep *Report, groups []group, j judging, covered map[recording.Key]bool) (*family, error) {
	lat := &family{Family: Family{Name: FamilyLatency, Alpha: j.alpha(FamilyLatency),
		Covers: "per-request rank tests of the latency percentiles of each scenario × endpoint, its levels as strata, widened by the drift between runs"}}
	var tw twins
	defer tw.note(rep)
	for _, f := range latencyFigs() {
		first := len(lat.tests)
		for gi := range groups {
			t, ok, err := latencyTest(rep, &groups[gi], f, covered)
			if err != nil {
				return nil, err
			}
			if ok && !tw.seen(t, f) {
				lat.tests = append(lat.tests, t)
			}
		}
		judgeDrift(lat.tests[first:], j.noDrift)
	}
	return lat, nil
}

// judgeDrift applies the drift between runs, pooled over tests (one
// figure's), and sets their p-values.
func judgeDrift(tests []test, noDrift bool) {
	ts := make([]*inference.TailTest, len(tests))
	for i := range tests {
		ts[i] = tests[i].tail
	}
	if noDrift {
		for _, t := range ts {
			t.WithoutDrift()
		}
	} else {
		inference.PoolDrift(ts)
	}
	for i := range tests {
		t := &tests[i]
		// z > 0: the new side slower, which is worse.
		t.pWorse, t.pBetter, t.Deff = t.tail.PAbove(), t.tail.PBelow(), t.tail.Deff
	}
}

// twins finds a figure whose requests' values are another's, as TTFA is
// TTFT's when the model sends no reasoning: it is judged once, and a note
// says so.
type twins struct {
	same  map[string]string // group/percentile/values → the unit judged
	of    map[[2]string][]string
	order [][2]string
}

// seen reports whether t's values are those of a figure already judged.
func (tw *twins) seen(t test, f latencyFig) bool {
	if tw.same == nil {
		tw.same, tw.of = map[string]string{}, map[[2]string][]string{}
	}
	key := fmt.Sprintf("%s/%d/%x", t.Benchmark, f.p, t.tail.Fingerprint)
	u, ok := tw.same[key]
	if !ok {
		tw.same[key] = f.unit
		return false
	}
	k := [2]string{f.unit, u}
	if tw.of[k] == nil {
		tw.order = append(tw.order, k)
	}
	tw.of[k] = append(tw.of[k], t.Benchmark)
	return true
}

func (tw *twins) note(rep *Report) {
	for _, k := range tw.order {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s judged as %s, which every request's value equals, on %s", k[0], k[1], strings.Join(tw.of[k], ", ")))
	}
}

// latencyTest runs the rank test of f on g's levels that have it. It
// fails when the test cannot be made and no runs family can judge f.
func latencyTest(rep *Report, g *group, f latencyFig, covered map[recording.Key]bool) (test, bool, error) {
	levels, names, benches := latencyLevels(g, f)
	if len(levels) == 0 {
		return test{}, false, nil
	}
	if constant(levels) {
		// The same value for every request on both sides (a TPOT the
		// server paces exactly): no evidence either way, and no place in
		// the family.
		rep.Unchanged++
		return test{}, false, nil
	}
	tt := inference.RunTailTest(levels, f.p)
	if math.IsNaN(tt.Deff) {
		// With one run a side the drift between runs cannot be measured,
		// and a per-request test would take it for a change: the runs
		// family judges the figure instead (and refuses too few runs).
		// Samples without benchmark files have no runs family to fall
		// back on, and the latency cannot be judged at all: unusable.
		why := fmt.Sprintf("%s %s: too few runs to measure the drift between runs (need %d in all, at least 2 on a side, have %d)",
			g.label, f.unit, inference.MinDriftDF+2, tt.DF+2)
		if benches[0] == "" {
			return test{}, false, fmt.Errorf("%w: %s, without which a per-request test would take the drift for a change: record ≥ 2 runs a side (llmsla ab -count, llmsla bench -count)",
				recording.ErrUnusable, why)
		}
		rep.Warnings = append(rep.Warnings, why+"; judged over runs only")
		return test{}, false, nil
	}
	cover(covered, benches, f.unit)
	changes := make([]LevelChange, len(tt.Levels))
	for i, l := range tt.Levels {
		changes[i] = LevelChange{Level: names[l.Index], Old: l.Old, New: l.New, N1: l.N1, N2: l.N2}
	}
	// P, Deff and the direction are set once the drift is pooled.
	return test{better: -1, Finding: Finding{Benchmark: g.label, Unit: f.unit, Old: tt.Old, New: tt.New,
		N1: tt.N[0], N2: tt.N[1], Requests: true, Levels: changes, tail: &tt}}, true, nil
}

// latencyLevels reads f from the requests of g's levels that have it on
// both sides, run by run: the strata of the test, their levels and their
// benchmarks.
func latencyLevels(g *group, f latencyFig) (levels []inference.LevelRuns, names []sample.Level, benches []string) {
	for _, gl := range g.levels {
		if !gl.has(f.unit) {
			continue
		}
		var lr inference.LevelRuns
		for side, c := range gl.cells {
			for _, run := range c.runs {
				var vals []float64
				for _, s := range c.byRun[run] {
					if v, ok := f.read(s); ok {
						vals = append(vals, v)
					}
				}
				if len(vals) > 0 {
					lr.Runs[side] = append(lr.Runs[side], vals)
				}
			}
		}
		if len(lr.Runs[0]) > 0 && len(lr.Runs[1]) > 0 {
			levels = append(levels, lr)
			names = append(names, gl.level)
			benches = append(benches, gl.bench)
		}
	}
	return levels, names, benches
}

// levelsOf lists a finding's levels for a report line.
func levelsOf(ls []LevelChange) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s %s → %s (%+.1f%%)", l.Level, metric.Precise(l.Old), metric.Precise(l.New), pct(l.Old, l.New))
	}
	return strings.Join(parts, ", ")
}

// constant reports whether every value of levels is the same.
func constant(levels []inference.LevelRuns) bool {
	first, seen := 0.0, false
	for _, lv := range levels {
		for _, runs := range lv.Runs {
			for _, vals := range runs {
				for _, v := range vals {
					if !seen {
						first, seen = v, true
					} else if v != first {
						return false
					}
				}
			}
		}
	}
	return true
}
