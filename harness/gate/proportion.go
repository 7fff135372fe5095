package gate

import (
	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

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

// qualityFamily runs the exact test of every proportion on every group.
func qualityFamily(rep *Report, groups []group, j judging, covered map[recording.Key]bool) *family {
	qual := &family{Family: Family{Name: FamilyQuality, Alpha: j.alpha(FamilyQuality),
		Covers: "exact tests on per-request counts of each scenario × endpoint: quality with levels pooled and paired by fixture case, errors with levels as strata"}}
	for gi := range groups {
		for _, f := range proportionFigs() {
			if t, ok := proportionTest(rep, &groups[gi], f, covered, j.keepEmpty); ok {
				qual.tests = append(qual.tests, t)
			}
		}
	}
	return qual
}

// outcomes are a proportion's counts over a group: per side, by stratum
// (a level, or a fixture case when byCase), strata in first-seen order,
// the cases each side asked, and the totals.
type outcomes struct {
	counts  [2]map[string]*tally
	order   []string
	cases   [2]map[string]bool
	total   [2]tally
	benches []string
}

// count tallies f over g's levels that have it.
func count(g *group, f proportionFig) *outcomes {
	o := &outcomes{}
	for side := range 2 {
		o.counts[side], o.cases[side] = map[string]*tally{}, map[string]bool{}
	}
	for _, gl := range g.levels {
		if !gl.has(f.unit) {
			continue
		}
		o.benches = append(o.benches, gl.bench)
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
						o.cases[side][s.Case] = true
					}
					o.add(side, key, failed)
				}
			}
		}
	}
	return o
}

// add counts one checked request of side in stratum key.
func (o *outcomes) add(side int, key string, failed bool) {
	tl := o.counts[side][key]
	if tl == nil {
		tl = &tally{}
		o.counts[side][key] = tl
		if o.counts[1-side][key] == nil {
			o.order = append(o.order, key)
		}
	}
	tl.n++
	o.total[side].n++
	if failed {
		tl.bad++
		o.total[side].bad++
	}
}

// strata are the tables of the exact test: one per stratum, or, for a
// figure of cases that cannot be paired, the totals.
func (o *outcomes) strata(pooled bool) []inference.Stratum {
	if pooled {
		return []inference.Stratum{{Bad: [2]int{o.total[0].bad, o.total[1].bad}, N: [2]int{o.total[0].n, o.total[1].n}}}
	}
	var out []inference.Stratum
	for _, k := range o.order {
		var st inference.Stratum
		for side := range 2 {
			if tl := o.counts[side][k]; tl != nil {
				st.Bad[side], st.N[side] = tl.bad, tl.n
			}
		}
		out = append(out, st)
	}
	return out
}

// proportionTest runs the exact test of f on g.
// keepEmpty keeps tests without evidence: a plan asks what a recording
// with no failure at all would need to see some.
func proportionTest(rep *Report, g *group, f proportionFig, covered map[recording.Key]bool, keepEmpty bool) (test, bool) {
	o := count(g, f)
	if o.total[0].n == 0 || o.total[1].n == 0 {
		return test{}, false
	}
	paired := f.byCase && pairable(o.counts, o.cases)
	cover(covered, o.benches, f.unit)
	e := inference.ExactStratified(o.strata(f.byCase && !paired))
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
		Old: rate(o.total[0]), New: rate(o.total[1]), N1: o.total[0].n, N2: o.total[1].n, Requests: true, Paired: paired, exact: &e}}
	if f.lower {
		t.better = -1
	}
	if paired {
		t.Cases = newlyFailing(o.counts)
		t.caseCounts = caseCounts(o.counts)
	}
	return t, true
}
