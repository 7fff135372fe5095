package gate

import (
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// Options configures Gate. The zero value uses each family's default level
// (latency 0.05, quality 0.005, runs 0.025), the default tolerances and no
// filter.
type Options struct {
	// Alpha is the family-wise significance level of every family; 0
	// means each family's default.
	Alpha float64
	// FamilyAlpha sets one family's level (FamilyQuality: 0.01), over
	// Alpha.
	FamilyAlpha map[string]float64
	// Tolerance overrides the default tolerances (10% and 1 ms for *-ms
	// units, 20% for *-p99-ms, 10% for */s, 1 point for *-%) per unit name
	// or glob; a key must match a unit of the metric table
	// (CheckToleranceKey).
	Tolerance map[string]Tolerance
	// Filter is a benchfilter query, as benchstat's -filter. It is the
	// way to narrow a comparison: benchmarks it leaves out are not
	// required in the new file.
	Filter string
	// AllowMissing lets benchmarks of the base that the new file lacks,
	// and figures a benchmark reported in every base run but in no new
	// one, pass with a warning. Without it a candidate cut short fails.
	AllowMissing bool
	// MatchProcs keys benchmarks by their full name, -N GOMAXPROCS
	// suffix included. By default the suffix is ignored, with a warning
	// when the two sides differ.
	MatchProcs bool
	// RunsOnly judges every figure over runs, as before the samples
	// files, even when both sides have one.
	RunsOnly bool
	// AcrossEndpoints matches GateRequests' samples by scenario and level
	// only, for two endpoints judged against each other (llmsla ab); by
	// default the endpoint is part of the match, so that a regression of
	// one endpoint of a run is not diluted by the others.
	AcrossEndpoints bool
	// AllowBlind names the latency units (or globs) that may be blind —
	// no change of them, however large, flagged at these sample sizes —
	// without keeping the gate from passing. By default every latency
	// percentile judged on requests must be seen (Report.Blind).
	AllowBlind []string
}

// judging is a comparison's Options with what the package's own callers
// vary beside them: Plan keeps proportions without a failure on either
// side (keepEmpty: a plan asks what a recording with none would need); the
// tests that run the gate thousands of times skip the MDEs, which cost
// more than the tests (noSensitivity), and the one that shows what the
// drift correction is for turns it off (noDrift).
type judging struct {
	Options
	noDrift, noSensitivity, keepEmpty bool
}

// Finding is one figure under test: a (benchmark, unit) judged over runs,
// or a (scenario × endpoint, unit) judged over requests.
type Finding struct {
	Benchmark, Unit string
	// Family is the correction the test belongs to (FamilyLatency, …).
	Family string
	// Old and New are the figure on each side: medians over runs; for a
	// latency over requests, the levels' percentiles averaged with the
	// test's weights; for a proportion, its rate over requests.
	Old, New float64
	// P is the raw p-value, PAdj the Holm-adjusted one that was compared
	// with α.
	P, PAdj float64
	// N1 and N2 are the runs on each side, or the requests when Requests.
	N1, N2   int
	Requests bool
	// Tolerance is the one the change was held to.
	Tolerance Tolerance

	// Levels are a latency's percentiles level by level.
	Levels []LevelChange
	// Deff is the drift correction of a latency test: the variance
	// factor between runs measured on the data (1: none seen).
	Deff float64
	// Paired says a quality test paired requests by fixture case; Cases
	// are then the cases that never failed on the base and failed on the
	// new side.
	Paired bool
	Cases  []CaseChange

	tail       *inference.TailTest
	exact      *inference.Exact
	caseCounts []CaseChange
}

// DeltaPct is the relative change in percent.
func (f Finding) DeltaPct() float64 { return pct(f.Old, f.New) }

// Report is the outcome of Gate.
type Report struct {
	Base, New string
	// Alpha is the runs family's level, which the checks of run counts
	// use; Families holds every family's.
	Alpha float64
	// Compared is the number of tests, over all families.
	Compared int
	// Families are the corrections, in the order the report lists them.
	Families     []Family
	Regressions  []Finding
	Improvements []Finding
	// Unchanged counts figures that were neither, Constant those of them
	// that were the same everywhere (every run, or every request) and so
	// were not tested: no labels could make them significant.
	Unchanged, Constant int
	// NotJudged are figures in both files with too few runs on a side
	// (the figure is missing from some runs) for the test to decide.
	NotJudged []Finding
	// Vanished are figures a benchmark reported in every base run and in
	// no new run: a check that no longer runs, or a figure no answer
	// gives any more. They fail the gate unless Options.AllowMissing.
	Vanished []Finding
	// Blind are the latency percentiles judged on requests that no
	// change, however large, would be flagged on with 80% probability at
	// these sample sizes (their minimal detectable effect is n/a): the
	// gate could not judge them, and does not pass (Verdict). BlindAllowed
	// are those Options.AllowBlind lets pass, still named.
	Blind, BlindAllowed []Finding
	// Sensitivity is what the per-request tests can see at these sample
	// sizes, per scenario × endpoint.
	Sensitivity []Sensitivity
	// Warnings are caveats that did not stop the decision; Notes say how
	// figures were judged where that is not the usual way.
	Warnings []string
	Notes    []string
}

// Failed reports whether any figure regressed or vanished. A report that
// has not failed may still not pass: see Verdict.
func (r *Report) Failed() bool { return len(r.Regressions) > 0 || len(r.Vanished) > 0 }

// Gate compares new against base and reports regressions. It returns an
// error wrapping recording.ErrUnusable when no judgement can be made.
//
// Figures the samples files beside both sources can answer (see
// recording.Source) are judged on requests, in the latency and quality families;
// every other figure, and all of them when a side has no samples, over
// runs.
func Gate(base, new recording.Source, opts Options) (*Report, error) {
	return gateFiles(base, new, judging{Options: opts})
}

// gateFiles is Gate as j says.
func gateFiles(base, new recording.Source, j judging) (*Report, error) {
	opts, err := defaults(j.Options)
	if err != nil {
		return nil, err
	}
	j.Options = opts
	filter, err := recording.ParseFilter(opts.Filter)
	if err != nil {
		return nil, err
	}
	sides := [2]*side{newSide(opts.MatchProcs), newSide(opts.MatchProcs)}
	units, err := recording.Read([]recording.Source{base, new}, filter, func(i int, res *benchfmt.Result) { sides[i].add(res) })
	if err != nil {
		return nil, err
	}
	rep := newReport(base.Name, new.Name, opts)
	if err := checkProcs(rep, sides); err != nil {
		return nil, err
	}
	if err := checkCommon(rep, sides, opts); err != nil {
		return nil, err
	}
	covered := map[sampleKey]bool{}
	var fams []*family
	if !opts.RunsOnly {
		rqs, err := sourceRequests(rep, base, new)
		if err != nil {
			return nil, err
		}
		var groups []group
		if rqs != nil {
			if groups, err = benchGroups(rep, [2]*requests{rqs[0], rqs[1]}, sides); err != nil {
				return nil, err
			}
		}
		if len(groups) > 0 {
			lat, qual, err := perRequest(rep, groups, j, covered)
			if err != nil {
				return nil, err
			}
			fams = append(fams, lat, qual)
		}
	}
	runs := &family{Family: Family{Name: FamilyRuns, Alpha: opts.alpha(FamilyRuns), Covers: "Mann-Whitney over runs, per (benchmark, unit) not judged on requests"}}
	runs.tests = pair(rep, sides, units, opts.AllowMissing, covered)
	if runs.tests, err = dropSparse(rep, sides, runs.tests); err != nil {
		return nil, err
	}
	if err := checkRuns(rep, runs.tests); err != nil {
		return nil, err
	}
	if len(runs.tests) > 0 || len(fams) == 0 {
		fams = append(fams, runs)
	}
	finish(rep, fams, j)
	return rep, nil
}

// Check reads src as Gate reads a side — its benchmark lines, and its
// samples when it has some — and returns the number of runs of each
// benchmark (named as the gate keys it), or the error that would make Gate
// refuse src on its own: a corrupt or cut line, runs recorded twice, a
// benchmark at two GOMAXPROCS, samples not recorded with the benchmarks.
// It compares nothing; a source it accepts may still be too little for a
// comparison (too few runs), which Gate says.
func Check(src recording.Source, opts Options) (runs map[string]int, err error) {
	s, _, err := selfGroups(newReport(src.Name, src.Name, opts), src, opts)
	if err != nil {
		return nil, err
	}
	return s.runs, nil
}

// selfGroups reads src once and matches its samples with its benchmarks,
// as both sides of a comparison with itself: what Plan and Check need.
func selfGroups(rep *Report, src recording.Source, opts Options) (*side, []group, error) {
	filter, err := recording.ParseFilter(opts.Filter)
	if err != nil {
		return nil, nil, err
	}
	s := newSide(opts.MatchProcs)
	if _, err := recording.Read([]recording.Source{src}, filter, func(_ int, res *benchfmt.Result) { s.add(res) }); err != nil {
		return nil, nil, err
	}
	sides := [2]*side{s, s}
	if err := checkProcs(rep, sides); err != nil {
		return nil, nil, err
	}
	rqs, err := sourceRequests(rep, src)
	if err != nil || rqs == nil {
		return s, nil, err
	}
	groups, err := benchGroups(rep, [2]*requests{rqs[0], rqs[0]}, sides)
	return s, groups, err
}

// GateRequests compares two sets of per-request samples — the two endpoints
// of an interleaved A/B run (opts.AcrossEndpoints), or two runs of which
// one at least was sent by shards: every figure is judged on requests.
// Samples are matched by scenario, endpoint and level; a cell of the base
// the new side lacks is unusable input, unless opts.AllowMissing.
func GateRequests(baseName, newName string, base, new []sample.Sample, opts Options) (*Report, error) {
	opts, err := defaults(opts)
	if err != nil {
		return nil, err
	}
	rep := newReport(baseName, newName, opts)
	var rqs [2]*requests
	for i, ss := range [2][]sample.Sample{base, new} {
		if opts.AcrossEndpoints {
			ss = append([]sample.Sample(nil), ss...)
			for j := range ss {
				ss[j].Endpoint = "" // the sides differ by endpoint: match the rest
			}
		}
		name := [2]string{baseName, newName}[i]
		if err := recording.CheckSamples(name, ss); err != nil {
			return nil, err
		}
		rqs[i] = groupRequests(name, ss)
	}
	groups, err := requestGroups(rep, rqs, opts.AllowMissing)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: %s and %s have no scenario and level in common", recording.ErrUnusable, baseName, newName)
	}
	j := judging{Options: opts}
	lat, qual, err := perRequest(rep, groups, j, map[sampleKey]bool{})
	if err != nil {
		return nil, err
	}
	if len(lat.tests)+len(qual.tests) == 0 {
		return nil, fmt.Errorf("%w: nothing to compare: no latency or quality figure that varies on both %s and %s (every request failed, or had the same value everywhere)", recording.ErrUnusable, baseName, newName)
	}
	finish(rep, []*family{lat, qual}, j)
	return rep, nil
}

// defaultFamilyAlpha is each family's level when none is given: the most
// probability of a false alarm the family is allowed.
//
//   - latency 0.05: a latency must also move beyond its tolerance (10% and
//     1 ms by default), which noise that clears the tests at these sample
//     sizes seldom does, so false alarms stay far below α;
//   - quality 0.005: a proportion of a few hundred answers has no such
//     filter (a 1-point tolerance is within its noise), so α is what
//     bounds them, and the bound is 1% for the whole gate;
//   - runs 0.025: the level at which the gate judged run figures before
//     (two-sided 0.05), so they are flagged as they were.
//
// docs/gate.md gives the rates measured with these levels.
var defaultFamilyAlpha = map[string]float64{FamilyLatency: 0.05, FamilyQuality: 0.005, FamilyRuns: 0.025}

// alpha is the level of family f.
func (o Options) alpha(f string) float64 {
	if a, ok := o.FamilyAlpha[f]; ok {
		return a
	}
	if o.Alpha != 0 {
		return o.Alpha
	}
	return defaultFamilyAlpha[f]
}

func defaults(opts Options) (Options, error) {
	for key := range opts.Tolerance {
		if err := CheckToleranceKey(key); err != nil {
			return opts, fmt.Errorf("tolerance: %w", err)
		}
	}
	for _, key := range opts.AllowBlind {
		if err := checkUnitKey(key, "so it allows nothing"); err != nil {
			return opts, fmt.Errorf("allow-blind: %w", err)
		}
	}
	if opts.Alpha != 0 {
		if err := CheckAlpha(opts.Alpha); err != nil {
			return opts, err
		}
	}
	for f, a := range opts.FamilyAlpha {
		if _, ok := defaultFamilyAlpha[f]; !ok {
			return opts, fmt.Errorf("alpha for %q: no such family (have %s, %s, %s)", f, FamilyLatency, FamilyQuality, FamilyRuns)
		}
		if err := CheckAlpha(a); err != nil {
			return opts, fmt.Errorf("%s: %w", f, err)
		}
	}
	return opts, nil
}

func newReport(base, new string, opts Options) *Report {
	rep := &Report{Base: base, New: new, Alpha: opts.alpha(FamilyRuns)}
	warn := func(a float64, what string) {
		if a > maxQuietAlpha {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("alpha %g%s: up to %.0f%% of unchanged candidates may be blocked by noise alone; the usual level is 0.05", a, what, 100*a))
		}
	}
	warn(opts.Alpha, "")
	for _, f := range []string{FamilyLatency, FamilyQuality, FamilyRuns} {
		if a, ok := opts.FamilyAlpha[f]; ok {
			warn(a, " for "+f)
		}
	}
	return rep
}

// finish judges each family and says what the per-request tests can see.
func finish(rep *Report, fams []*family, j judging) {
	for _, f := range fams {
		f.judge(rep, j.Options)
		rep.Compared += f.Tests
	}
	if !j.noSensitivity {
		rep.Sensitivity = sensitivity(fams, j.Options)
	}
	setBlind(rep, j.AllowBlind)
}

// checkProcs fails when one side holds a benchmark at two GOMAXPROCS
// (go test -cpu 1,2), which the gate would otherwise pool, and warns when
// the sides were recorded with different ones.
func checkProcs(rep *Report, sides [2]*side) error {
	for i, s := range sides {
		if len(s.mixed) > 0 {
			return fmt.Errorf("%w: %s holds benchmarks at several GOMAXPROCS, which would be pooled:\n\t%s\ncompare them apart with -match-procs, or record one -cpu",
				recording.ErrUnusable, [2]string{rep.Base, rep.New}[i], list(s.mixed, 5))
		}
	}
	differ := map[[2]string]int{}
	var order [][2]string
	for _, b := range sides[0].benchOrder {
		p1, ok := sides[1].procs[b]
		p := [2]string{sides[0].procs[b], p1}
		if !ok || p[0] == p[1] {
			continue
		}
		if differ[p] == 0 {
			order = append(order, p)
		}
		differ[p]++
	}
	for _, p := range order {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d benchmarks ran at GOMAXPROCS %s in %s and %s in %s: compared anyway, as the client's core count is not what is measured; a client starved of CPU measures itself (-match-procs keeps them apart)",
			differ[p], orOne(p[0]), rep.Base, orOne(p[1]), rep.New))
	}
	return nil
}

// CheckAlpha rejects a level that is no significance level: NaN (which
// every comparison would let through), and 0.5 or more, at which the gate
// blocks unchanged candidates more often than not. The SLA file's
// gate.alpha has the same bounds.
func CheckAlpha(alpha float64) error {
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
				recording.ErrUnusable, len(missing), len(sides[0].benchOrder), rep.Base, rep.New, list(missing, 10))
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
		return fmt.Errorf("%w: no benchmark results match -filter %q in %s and %s; widen the filter", recording.ErrUnusable, opts.Filter, rep.Base, rep.New)
	}
	return fmt.Errorf("%w: %s and %s have no benchmark in common; names must match exactly, including sub-benchmark keys (the -N GOMAXPROCS suffix is ignored unless -match-procs): record both with the same suite and configuration (make bench then make baseline records a baseline here)", recording.ErrUnusable, rep.Base, rep.New)
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
