package gate

import (
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/recording"
)

// The runs family: each (benchmark, unit) of the benchfmt files that is
// not judged on requests, compared over runs with the Mann-Whitney U test,
// which assumes no distribution: run figures are percentiles of a few
// requests, skewed, and few.

// pair builds the comparisons for (benchmark, unit) pairs on both sides
// whose direction is known. A pair whose pooled values are all equal (err-%
// at 0 everywhere) carries no evidence either way and is counted unchanged
// without entering the Holm family; leaving it out is valid because the
// pooled values are the same whatever the labels.
func pair(rep *Report, sides [2]*recording.Values, units benchfmt.UnitMetadataMap, allowMissing bool, covered map[recording.Key]bool) []test {
	var cmps []test
	warned := map[string]bool{}
	for _, k := range sides[0].Order {
		if covered[k] || health.IsUnit(k.Unit) {
			continue // a client's health is compared as provenance (compareHealth)
		}
		newVals, ok := sides[1].Vals[k]
		if !ok {
			if !sides[1].Benches[k.Bench] {
				continue
			}
			n := len(sides[0].Vals[k])
			if n == sides[0].Runs[k.Bench] && !allowMissing {
				rep.Vanished = append(rep.Vanished, Finding{Benchmark: k.Bench, Unit: k.Unit, N1: n, N2: sides[1].Runs[k.Bench]})
				continue
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: unit %s only in %s; not compared", k.Bench, k.Unit, rep.Base))
			continue
		}
		better := direction(units, k.Unit)
		if better == 0 {
			if !warned[k.Unit] {
				warned[k.Unit] = true
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("unit %s: direction unknown, not gated; declare it with \"Unit %s better=lower\" (or higher) in the bench output", k.Unit, k.Unit))
			}
			continue
		}
		oldVals := sides[0].Vals[k]
		if inference.AllEqual(oldVals, newVals) {
			rep.Unchanged++
			rep.Constant++
			continue
		}
		cmps = append(cmps, test{Finding: Finding{Benchmark: k.Bench, Unit: k.Unit, N1: len(oldVals), N2: len(newVals)}, better: better})
	}
	for _, k := range sides[1].Order {
		if _, ok := sides[0].Vals[k]; !ok && sides[0].Benches[k.Bench] && !health.IsUnit(k.Unit) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: unit %s only in %s; not compared", k.Bench, k.Unit, rep.New))
		}
	}
	for i := range cmps {
		c := &cmps[i]
		k := recording.Key{Bench: c.Benchmark, Unit: c.Unit}
		var p float64
		c.Old, c.New, p = inference.MannWhitney(sides[0].Vals[k], sides[1].Vals[k])
		// benchmath's p is two-sided; the U test is symmetric under no
		// change, so each direction's is half of it, or one minus that.
		p /= 2
		c.pWorse, c.pBetter = p, p
		switch {
		case c.worse():
			c.pBetter = 1 - p
		case c.New != c.Old:
			c.pWorse = 1 - p
		}
	}
	return cmps
}

// dropSparse sets apart the figures a run does not always have (itl of
// one-token answers, json-valid of a run with no JSON check) when they have
// too few runs on a side for the test ever to be significant: they are
// listed as not judged, by name, rather than compared blind. A figure in
// every run of a benchmark that has too few runs on a side is not sparse:
// the benchmark was measured too little to see a regression, and that is
// unusable input. So is a comparison in which every figure was set aside.
//
// At a sequential gate's interim look (interim), whose α no figure over
// runs may reach yet, they are set aside alike: the last look judges them.
func dropSparse(rep *Report, sides [2]*recording.Values, cmps []test, interim bool) ([]test, error) {
	kept := cmps[:0]
	need := inference.RunsNeeded1(rep.Alpha)
	for _, c := range cmps {
		if inference.MinP1(c.N1, c.N2) <= rep.Alpha {
			kept = append(kept, c)
			continue
		}
		runs := [2]int{sides[0].Runs[c.Benchmark], sides[1].Runs[c.Benchmark]}
		if c.N1 < runs[0] || c.N2 < runs[1] || interim {
			rep.NotJudged = append(rep.NotJudged, c.Finding)
			continue
		}
		return nil, fmt.Errorf("%w: benchmark %s has %d runs in %s and %d in %s: the Mann-Whitney test at alpha %g can never flag its %s with so few: need ≥ %d runs per side; raise go test -count"+fewRuns,
			recording.ErrUnusable, c.Benchmark, runs[0], rep.Base, runs[1], rep.New, rep.Alpha, c.Unit, need)
	}
	if len(kept) == 0 && len(rep.NotJudged) > 0 && !interim {
		c := rep.NotJudged[0]
		return nil, fmt.Errorf("%w: nothing left to judge over runs: %s %s is in %d runs in %s and %d in %s (missing from the others), and the Mann-Whitney test at alpha %g can never be significant with so few: need ≥ %d runs per side; raise go test -count"+fewRuns,
			recording.ErrUnusable, c.Benchmark, c.Unit, c.N1, rep.Base, c.N2, rep.New, rep.Alpha, need)
	}
	return kept, nil
}

// fewRuns ends the advice to record more runs: a level that stopped once
// decided recorded only the runs it sent, and -count does not change that.
const fewRuns = " (a level that stopped once decided, under stop: decided or -until decided, has only the runs it sent: record without it to gate over runs)"

// checkRuns fails when the sample sizes make significance impossible
// under Holm–Bonferroni, so a gate that cannot see a regression does not
// pass quietly. Mann-Whitney's smallest p-value depends only on the run
// counts; Holm's first step needs p ≤ α/m. dropSparse has removed the
// figures that could not reach α at all.
func checkRuns(rep *Report, cmps []test) error {
	if len(cmps) == 0 {
		return nil
	}
	m := float64(len(cmps))
	needHolm := inference.RunsNeeded1(rep.Alpha / m)
	blindHolm := 0
	for _, c := range cmps {
		if inference.MinP1(c.N1, c.N2) > rep.Alpha/m {
			blindHolm++
		}
	}
	if blindHolm == len(cmps) {
		return fmt.Errorf("%w: %d comparisons under Holm–Bonferroni need p ≤ %.2g at the first step, which needs ≥ %d runs per side; raise go test -count, or narrow -filter"+fewRuns,
			recording.ErrUnusable, len(cmps), rep.Alpha/m, needHolm)
	}
	if blindHolm > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d of %d comparisons have fewer than %d runs per side and can be flagged only after another is; raise go test -count"+fewRuns, blindHolm, len(cmps), needHolm))
	}
	return nil
}

// direction is +1 when higher is better, -1 when lower is, 0 if unknown.
// Declared metadata wins, then the metric table (drift-% is a *-% unit
// where lower is better); the fallbacks follow the project's unit names.
func direction(units benchfmt.UnitMetadataMap, unit string) int {
	if units.Get(unit, "better") != nil {
		return units.GetBetter(unit)
	}
	if f, ok := metric.ByUnit(unit); ok {
		if f.Lower {
			return -1
		}
		return 1
	}
	switch {
	case strings.HasSuffix(unit, "-ms"), unit == "ns/op", unit == "sec/op":
		return -1
	case strings.HasPrefix(unit, "err"):
		return -1
	case strings.HasSuffix(unit, "/s"), strings.HasSuffix(unit, "-%"):
		return 1
	}
	return units.GetBetter(unit)
}
