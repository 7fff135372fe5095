package gate

import (
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Options configures Gate. The zero value uses α = 0.05, the default
// tolerances and no filter.
type Options struct {
	// Alpha is the family-wise significance level; 0 means 0.05.
	Alpha float64
	// Tolerance overrides DefaultTolerances per unit name or glob.
	Tolerance map[string]Tolerance
	// Filter is a benchfilter query, as benchstat's -filter. It is the
	// way to narrow a comparison: benchmarks it leaves out are not
	// required in the new file.
	Filter string
	// AllowMissing lets benchmarks of the base that the new file lacks,
	// and figures a benchmark reported in every base run but in no new
	// one, pass with a warning. Without it a candidate cut short fails.
	AllowMissing bool
}

// Finding is one (benchmark, unit) whose change was judged significant.
type Finding struct {
	Benchmark, Unit string
	// Old and New are the medians of the base and new samples.
	Old, New float64
	// P is the raw Mann-Whitney p-value, PAdj the Holm-adjusted one
	// that was compared with α.
	P, PAdj float64
	// N1 and N2 are the runs on each side.
	N1, N2 int
	// Tolerance is the one the change exceeded.
	Tolerance Tolerance
}

// DeltaPct is the relative change of medians in percent.
func (f Finding) DeltaPct() float64 { return pct(f.Old, f.New) }

// Report is the outcome of Gate.
type Report struct {
	Base, New string
	Alpha     float64
	// Compared is the family size Holm–Bonferroni corrected for.
	Compared     int
	Regressions  []Finding
	Improvements []Finding
	// Unchanged counts comparisons that were neither.
	Unchanged int
	// NotJudged are figures in both files with too few runs on a side
	// (the figure is missing from some runs) for the test to decide.
	NotJudged []Finding
	// Vanished are figures a benchmark reported in every base run and in
	// no new run: a check that no longer runs, or a figure no answer
	// gives any more. They fail the gate unless Options.AllowMissing.
	Vanished []Finding
	// Warnings are caveats that did not stop the decision.
	Warnings []string

	failSparse error
}

// Failed reports whether any figure regressed or vanished.
func (r *Report) Failed() bool { return len(r.Regressions) > 0 || len(r.Vanished) > 0 }

type sampleKey struct{ bench, unit string }

// side holds one file's samples in first-seen order.
type side struct {
	vals       map[sampleKey][]float64
	order      []sampleKey
	benches    map[string]bool
	benchOrder []string
	iters      map[string]int // of each benchmark's first run
	runs       map[string]int // results of each benchmark
}

func newSide() *side {
	return &side{vals: map[sampleKey][]float64{}, benches: map[string]bool{}, iters: map[string]int{}, runs: map[string]int{}}
}

func (s *side) add(res *benchfmt.Result) {
	bench := res.Name.String()
	if !s.benches[bench] {
		s.benches[bench] = true
		s.benchOrder = append(s.benchOrder, bench)
		s.iters[bench] = res.Iters
	}
	s.runs[bench]++
	for _, v := range res.Values {
		k := sampleKey{bench, unitOf(v)}
		if _, ok := s.vals[k]; !ok {
			s.order = append(s.order, k)
		}
		s.vals[k] = append(s.vals[k], valueOf(v))
	}
}

// comparison is one (benchmark, unit) pair under test.
type comparison struct {
	Finding
	better int
}

// Gate compares new against base and reports regressions. It returns an
// error wrapping ErrUnusable when no judgement can be made.
func Gate(base, new Source, opts Options) (*Report, error) {
	if opts.Alpha == 0 {
		opts.Alpha = 0.05
	}
	if err := checkAlpha(opts.Alpha); err != nil {
		return nil, err
	}
	filter, err := parseFilter(opts.Filter)
	if err != nil {
		return nil, err
	}
	sides := [2]*side{newSide(), newSide()}
	units, err := load([]Source{base, new}, filter, func(i int, res *benchfmt.Result) { sides[i].add(res) })
	if err != nil {
		return nil, err
	}
	rep := &Report{Base: base.Name, New: new.Name, Alpha: opts.Alpha}
	if opts.Alpha > maxQuietAlpha {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("alpha %g: up to %.0f%% of unchanged candidates may be blocked by noise alone; the usual level is 0.05", opts.Alpha, 100*opts.Alpha))
	}
	if err := checkCommon(rep, sides, opts); err != nil {
		return nil, err
	}
	cmps := pair(rep, sides, units, opts.AllowMissing)
	cmps = dropSparse(rep, cmps)
	if err := checkRuns(rep, cmps); err != nil {
		return nil, err
	}
	judge(rep, cmps, opts)
	return rep, nil
}

// checkAlpha rejects a level that is no significance level: NaN (which
// every comparison would let through), and 0.5 or more, at which the gate
// blocks unchanged candidates more often than not. The SLA file's
// gate.alpha has the same bounds.
func checkAlpha(alpha float64) error {
	if !(alpha > 0 && alpha < 0.5) {
		return fmt.Errorf("alpha %g is not a significance level: want 0 < alpha < 0.5 (e.g. 0.05); it is the probability of blocking an unchanged candidate", alpha)
	}
	return nil
}

// maxQuietAlpha is the largest alpha accepted without a warning.
const maxQuietAlpha = 0.1

// checkCommon fails when a benchmark of the base is missing from the new
// file, unless the options say that is fine, and when no benchmark is on
// both sides: then nothing was compared and a pass would be a lie.
// Benchmarks only in the new file are new and have nothing to be
// compared with; they are a warning.
func checkCommon(rep *Report, sides [2]*side, opts Options) error {
	common := 0
	var missing []string
	for _, b := range sides[0].benchOrder {
		if sides[1].benches[b] {
			common++
		} else {
			missing = append(missing, b)
		}
	}
	for _, b := range sides[1].benchOrder {
		if !sides[0].benches[b] {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s only in %s; not compared", b, rep.New))
		}
	}
	if common > 0 && len(missing) > 0 {
		if !opts.AllowMissing {
			return fmt.Errorf("%w: %d of the %d benchmarks of %s are missing from %s, so the candidate was not measured on them (a run cut short?):\n\t%s\nre-record the candidate; to compare only some benchmarks say so with -filter, or pass -allow-missing",
				ErrUnusable, len(missing), len(sides[0].benchOrder), rep.Base, rep.New, list(missing, 10))
		}
		for _, b := range missing {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s only in %s; not compared (-allow-missing)", b, rep.Base))
		}
	}
	if common > 0 {
		warnIters(rep, sides)
		return nil
	}
	if len(sides[0].benches) == 0 || len(sides[1].benches) == 0 {
		return fmt.Errorf("%w: no benchmark results match -filter %q in %s and %s; widen the filter", ErrUnusable, opts.Filter, rep.Base, rep.New)
	}
	return fmt.Errorf("%w: %s and %s have no benchmark in common; names must match exactly, including sub-benchmark keys and the -N GOMAXPROCS suffix: record both with the same suite on the same machine shape (make bench then make baseline records a baseline here)", ErrUnusable, rep.Base, rep.New)
}

// warnIters warns when a benchmark's runs had different iteration counts
// on the two sides. The name does not carry it, yet a run's figures depend
// on it: one iteration is one request, and the p95 of 10 requests sits
// nearer the maximum than the p95 of 20, so the comparison is biased.
func warnIters(rep *Report, sides [2]*side) {
	type pair struct{ a, b int }
	first, count := map[pair]string{}, map[pair]int{}
	var order []pair
	for _, b := range sides[0].benchOrder {
		n, ok := sides[1].iters[b]
		p := pair{sides[0].iters[b], n}
		if !ok || p.a == p.b {
			continue
		}
		if count[p] == 0 {
			first[p] = b
			order = append(order, p)
		}
		count[p]++
	}
	for _, p := range order {
		more := ""
		if count[p] > 1 {
			more = fmt.Sprintf(" and %d more", count[p]-1)
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s%s: %d iterations per run in %s, %d in %s; percentiles over different numbers of requests are biased: record both with the same go test -benchtime (llmsla bench -n)",
			first[p], more, p.a, rep.Base, p.b, rep.New))
	}
}

// pair builds the comparisons for (benchmark, unit) pairs on both sides
// whose direction is known. A pair whose pooled values are all equal (err-%
// at 0 everywhere) carries no evidence either way and is counted unchanged
// without entering the Holm family; leaving it out is valid because the
// pooled values are the same whatever the labels.
func pair(rep *Report, sides [2]*side, units benchfmt.UnitMetadataMap, allowMissing bool) []comparison {
	var cmps []comparison
	warned := map[string]bool{}
	for _, k := range sides[0].order {
		newVals, ok := sides[1].vals[k]
		if !ok {
			if !sides[1].benches[k.bench] {
				continue
			}
			n := len(sides[0].vals[k])
			if n == sides[0].runs[k.bench] && !allowMissing {
				rep.Vanished = append(rep.Vanished, Finding{Benchmark: k.bench, Unit: k.unit, N1: n, N2: sides[1].runs[k.bench]})
				continue
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: unit %s only in %s; not compared", k.bench, k.unit, rep.Base))
			continue
		}
		better := direction(units, k.unit)
		if better == 0 {
			if !warned[k.unit] {
				warned[k.unit] = true
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("unit %s: direction unknown, not gated; declare it with \"Unit %s better=lower\" (or higher) in the bench output", k.unit, k.unit))
			}
			continue
		}
		oldVals := sides[0].vals[k]
		if allEqual(oldVals, newVals) {
			rep.Unchanged++
			continue
		}
		cmps = append(cmps, comparison{Finding: Finding{Benchmark: k.bench, Unit: k.unit, N1: len(oldVals), N2: len(newVals)}, better: better})
	}
	for _, k := range sides[1].order {
		if _, ok := sides[0].vals[k]; !ok && sides[0].benches[k.bench] {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: unit %s only in %s; not compared", k.bench, k.unit, rep.New))
		}
	}
	for i := range cmps {
		c := &cmps[i]
		k := sampleKey{c.Benchmark, c.Unit}
		thr := &benchmath.Thresholds{CompareAlpha: rep.Alpha}
		s1 := benchmath.NewSample(append([]float64(nil), sides[0].vals[k]...), thr)
		s2 := benchmath.NewSample(append([]float64(nil), sides[1].vals[k]...), thr)
		c.Old = benchmath.AssumeNothing.Summary(s1, 0.95).Center
		c.New = benchmath.AssumeNothing.Summary(s2, 0.95).Center
		c.P = benchmath.AssumeNothing.Compare(s1, s2).P
	}
	return cmps
}

// dropSparse sets apart the figures with too few runs on a side for the
// test ever to be significant: a figure a run does not always have (itl of
// one-token answers, json-valid of a run with no JSON check) is listed as
// not judged, by name, rather than compared blind or allowed to make the
// whole comparison unusable. checkRuns still fails when nothing is left.
func dropSparse(rep *Report, cmps []comparison) []comparison {
	kept := cmps[:0]
	for _, c := range cmps {
		if minP(c.N1, c.N2) > rep.Alpha {
			rep.NotJudged = append(rep.NotJudged, c.Finding)
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == 0 && len(rep.NotJudged) > 0 {
		c := rep.NotJudged[0]
		rep.failSparse = fmt.Errorf("%w: %s %s has %d runs in %s and %d in %s; the Mann-Whitney test at alpha %g can never be significant with so few: need ≥ %d runs per side; raise go test -count",
			ErrUnusable, c.Benchmark, c.Unit, c.N1, rep.Base, c.N2, rep.New, rep.Alpha, runsNeeded(rep.Alpha))
	}
	return kept
}

// checkRuns fails when the sample sizes make significance impossible, so a
// gate that cannot see a regression does not pass quietly. Mann-Whitney's
// smallest p-value depends only on the run counts; Holm's first step needs
// p ≤ α/m.
func checkRuns(rep *Report, cmps []comparison) error {
	rep.Compared = len(cmps)
	if rep.failSparse != nil {
		return rep.failSparse
	}
	if len(cmps) == 0 {
		return nil
	}
	m := float64(len(cmps))
	needPlain, needHolm := runsNeeded(rep.Alpha), runsNeeded(rep.Alpha/m)
	blindHolm := 0
	for _, c := range cmps {
		if minP(c.N1, c.N2) > rep.Alpha {
			return fmt.Errorf("%w: %s %s has %d runs in %s and %d in %s; the Mann-Whitney test at alpha %g can never be significant with so few: need ≥ %d runs per side (≥ %d for %d comparisons under Holm–Bonferroni); raise go test -count",
				ErrUnusable, c.Benchmark, c.Unit, c.N1, rep.Base, c.N2, rep.New, rep.Alpha, needPlain, needHolm, len(cmps))
		}
		if minP(c.N1, c.N2) > rep.Alpha/m {
			blindHolm++
		}
	}
	if blindHolm == len(cmps) {
		return fmt.Errorf("%w: %d comparisons under Holm–Bonferroni need p ≤ %.2g at the first step, which needs ≥ %d runs per side; raise go test -count, or narrow -filter",
			ErrUnusable, len(cmps), rep.Alpha/m, needHolm)
	}
	if blindHolm > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d of %d comparisons have fewer than %d runs per side and can be flagged only after another is; raise go test -count", blindHolm, len(cmps), needHolm))
	}
	return nil
}

// judge applies Holm–Bonferroni, the direction and the tolerance.
func judge(rep *Report, cmps []comparison, opts Options) {
	ps := make([]float64, len(cmps))
	for i, c := range cmps {
		ps[i] = c.P
	}
	for i, adj := range HolmAdjust(ps) {
		c := cmps[i]
		c.PAdj = adj
		c.Tolerance = toleranceFor(c.Unit, opts.Tolerance)
		if adj > rep.Alpha || !c.Tolerance.exceeded(c.Old, c.New) {
			rep.Unchanged++
			continue
		}
		worse := (c.New-c.Old)*float64(c.better) < 0
		if worse {
			rep.Regressions = append(rep.Regressions, c.Finding)
		} else {
			rep.Improvements = append(rep.Improvements, c.Finding)
		}
	}
}

// direction is +1 when higher is better, -1 when lower is, 0 if unknown.
// Declared metadata wins; the fallbacks follow the project's unit names.
func direction(units benchfmt.UnitMetadataMap, unit string) int {
	if units.Get(unit, "better") != nil {
		return units.GetBetter(unit)
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

func allEqual(a, b []float64) bool {
	for _, s := range [][]float64{a, b} {
		for _, x := range s {
			if x != a[0] {
				return false
			}
		}
	}
	return true
}

// list joins names one per line, at most max of them.
func list(names []string, max int) string {
	if len(names) > max {
		return strings.Join(names[:max], "\n\t") + fmt.Sprintf("\n\t(and %d more)", len(names)-max)
	}
	return strings.Join(names, "\n\t")
}

func pct(old, new float64) float64 {
	return (new/old - 1) * 100
}
