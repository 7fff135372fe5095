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

// Figures are judged on requests when both sides recorded them and a
// request has them: every latency percentile of a metric with a
// per-request reading (itl is a gap between chunks, not a request: it
// stays with the runs), and the proportions a request passes or fails.
// Their units are the metric table's.

// latencyFig is a latency percentile judged per request.
type latencyFig struct {
	unit string
	p    int
	read func(*sample.Sample) (float64, bool)
}

// proportionFig is a proportion judged per request. read says whether a
// request counts (checked) and whether it failed.
type proportionFig struct {
	unit string
	// lower: the figure is a failure rate (err-%); else a pass rate.
	lower bool
	// byCase: the figure does not depend on the load level (an answer's
	// quality does not), so a scenario's levels are pooled and requests
	// are paired by fixture case; otherwise (errors, which grow with
	// load) the levels are the strata.
	byCase bool
	read   func(*sample.Sample) (checked, failed bool)
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

func proportionFigs() []proportionFig {
	var out []proportionFig
	for _, m := range metric.Table {
		if m.Outcome == nil {
			continue
		}
		outcome := m.Outcome
		out = append(out, proportionFig{unit: metric.Fig{Metric: m}.Unit(), lower: m.Lower, byCase: m.PerCase,
			read: func(s *sample.Sample) (bool, bool) {
				checked, passed := outcome(s)
				return checked, checked && !passed
			}})
	}
	return out
}

// group is one scenario × endpoint on both sides: what a per-request test
// judges, its load levels as strata.
type group struct {
	label  string
	levels []groupLevel
}

// groupLevel is one level of a group: its cells on each side and, when
// the sides are benchfmt files, the benchmark that reported it and which
// of its units both sides have (after -filter).
type groupLevel struct {
	level sample.Level
	bench string
	cells [2]*cell
	units map[string]bool // nil: every unit
}

func (gl groupLevel) has(unit string) bool { return gl.units == nil || gl.units[unit] }

// LevelChange is a latency percentile at one level on each side.
type LevelChange struct {
	Level    sample.Level
	Old, New float64
	N1, N2   int // requests
}

// perRequest builds the latency and quality families of groups. covered
// receives every (benchmark, unit) judged here, which the run-level family
// leaves out. It fails when a latency can be judged neither here nor over
// runs.
func perRequest(rep *Report, groups []group, j judging, covered map[sampleKey]bool) (lat, qual *family, err error) {
	opts := j.Options
	lat = &family{Family: Family{Name: FamilyLatency, Alpha: opts.alpha(FamilyLatency),
		Covers: "per-request rank tests of the latency percentiles of each scenario × endpoint, its levels as strata, widened by the drift between runs"}}
	qual = &family{Family: Family{Name: FamilyQuality, Alpha: opts.alpha(FamilyQuality),
		Covers: "exact tests on per-request counts of each scenario × endpoint: quality with levels pooled and paired by fixture case, errors with levels as strata"}}
	// same finds a figure whose requests' values are another's, as TTFA
	// is TTFT's when the model sends no reasoning: it is judged once.
	same := map[string]string{}
	twins := map[[2]string][]string{}
	var twinOrder [][2]string
	defer func() {
		for _, k := range twinOrder {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s judged as %s, which every request's value equals, on %s", k[0], k[1], strings.Join(twins[k], ", ")))
		}
	}()
	for _, f := range latencyFigs() {
		var ts []*inference.TailTest
		first := len(lat.tests)
		for gi := range groups {
			t, ok, err := latencyTest(rep, &groups[gi], f, covered)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				continue
			}
			key := fmt.Sprintf("%s/%d/%x", t.Benchmark, f.p, t.tail.Fingerprint)
			if u, ok := same[key]; ok {
				k := [2]string{f.unit, u}
				if twins[k] == nil {
					twinOrder = append(twinOrder, k)
				}
				twins[k] = append(twins[k], t.Benchmark)
				continue
			}
			same[key] = f.unit
			lat.tests = append(lat.tests, t)
		}
		for i := first; i < len(lat.tests); i++ {
			ts = append(ts, lat.tests[i].tail)
		}
		if j.noDrift {
			for _, t := range ts {
				t.WithoutDrift()
			}
		} else {
			inference.PoolDrift(ts)
		}
		for i := first; i < len(lat.tests); i++ {
			t := &lat.tests[i]
			// z > 0: the new side slower, which is worse.
			t.pWorse, t.pBetter, t.Deff = t.tail.PAbove(), t.tail.PBelow(), t.tail.Deff
		}
	}
	for gi := range groups {
		for _, f := range proportionFigs() {
			if t, ok := proportionTest(rep, &groups[gi], f, covered, j.keepEmpty); ok {
				qual.tests = append(qual.tests, t)
			}
		}
	}
	return lat, qual, nil
}

// latencyTest runs the rank test of f on g's levels that have it. It
// fails when the test cannot be made and no runs family can judge f.
func latencyTest(rep *Report, g *group, f latencyFig, covered map[sampleKey]bool) (test, bool, error) {
	var levels []inference.LevelRuns
	var names []sample.Level
	var benches []string
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
	for _, b := range benches {
		if b != "" {
			covered[sampleKey{b, f.unit}] = true
		}
	}
	changes := make([]LevelChange, len(tt.Levels))
	for i, l := range tt.Levels {
		changes[i] = LevelChange{Level: names[l.Index], Old: l.Old, New: l.New, N1: l.N1, N2: l.N2}
	}
	// P, Deff and the direction are set once the drift is pooled.
	return test{better: -1, Finding: Finding{Benchmark: g.label, Unit: f.unit, Old: tt.Old, New: tt.New,
		N1: tt.N[0], N2: tt.N[1], Requests: true, Levels: changes, tail: &tt}}, true, nil
}

// proportionTest runs the exact test of f on g.
// keepEmpty keeps tests without evidence: a plan asks what a recording
// with no failure at all would need to see some.
func proportionTest(rep *Report, g *group, f proportionFig, covered map[sampleKey]bool, keepEmpty bool) (test, bool) {
	var counts [2]map[string]*tally // stratum → counts, per side
	counts[0], counts[1] = map[string]*tally{}, map[string]*tally{}
	var order []string
	var benches []string
	var cases [2]map[string]bool
	cases[0], cases[1] = map[string]bool{}, map[string]bool{}
	var total [2]tally
	for _, gl := range g.levels {
		if !gl.has(f.unit) {
			continue
		}
		benches = append(benches, gl.bench)
		for side, c := range gl.cells {
			for _, run := range c.runs {
				for _, s := range c.byRun[run] {
					checked, failed := f.read(s)
					if !checked {
						continue
					}
					key := string(gl.level)
					if f.byCase {
						key = s.Case
						cases[side][s.Case] = true
					}
					tl := counts[side][key]
					if tl == nil {
						tl = &tally{}
						counts[side][key] = tl
						if counts[1-side][key] == nil {
							order = append(order, key)
						}
					}
					tl.n++
					total[side].n++
					if failed {
						tl.bad++
						total[side].bad++
					}
				}
			}
		}
	}
	if total[0].n == 0 || total[1].n == 0 {
		return test{}, false
	}
	paired := f.byCase && pairable(counts, cases)
	var strata []inference.Stratum
	if f.byCase && !paired {
		strata = []inference.Stratum{{Bad: [2]int{total[0].bad, total[1].bad}, N: [2]int{total[0].n, total[1].n}}}
	} else {
		for _, k := range order {
			var st inference.Stratum
			for side := range 2 {
				if tl := counts[side][k]; tl != nil {
					st.Bad[side], st.N[side] = tl.bad, tl.n
				}
			}
			strata = append(strata, st)
		}
	}
	for _, b := range benches {
		if b != "" {
			covered[sampleKey{b, f.unit}] = true
		}
	}
	e := inference.ExactStratified(strata)
	if e.Informative == 0 && !keepEmpty {
		// Every request had the same outcome wherever both sides asked:
		// no evidence either way, and no place in the family (the test
		// could not reject whatever the labels).
		rep.Unchanged++
		rep.Constant++
		return test{}, false
	}
	rate := func(t tally) float64 {
		r := float64(t.bad) / float64(t.n)
		if !f.lower {
			r = 1 - r
		}
		return 100 * r
	}
	// More failures on the new side is worse for either kind of figure.
	t := test{better: 1, pWorse: e.PWorse, pBetter: e.PBetter, Finding: Finding{Benchmark: g.label, Unit: f.unit,
		Old: rate(total[0]), New: rate(total[1]), N1: total[0].n, N2: total[1].n, Requests: true, Paired: paired, exact: &e}}
	if f.lower {
		t.better = -1
	}
	if f.byCase && paired {
		t.Cases = newlyFailing(counts)
		t.caseCounts = caseCounts(counts)
	}
	return t, true
}

// groupLabel names a scenario × endpoint as the benchmarks do, without the
// levels it pools: "chat/endpoint=prod".
func groupLabel(scenario, endpoint string) string {
	if endpoint == "" {
		return scenario
	}
	return scenario + "/endpoint=" + sample.NameValue(endpoint)
}

// levelsOf lists a finding's levels for a report line.
func levelsOf(ls []LevelChange) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s %s → %s (%+.1f%%)", l.Level, recording.Num(l.Old), recording.Num(l.New), pct(l.Old, l.New))
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
