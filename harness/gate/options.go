package gate

import "fmt"

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
	// Objective says whether a scenario × endpoint's objectives bound a
	// latency unit (the SLA file's ttft_p95_ms for ttft-p95-ms): a blind
	// figure without one is named in the headline but keeps nothing from
	// passing; a blind one with one is not a pass. Nil: every latency
	// percentile judged on requests counts as asked for.
	Objective func(group, unit string) bool
	// AllowChange names the kinds of defining provenance keys (model.digest,
	// fixture, …: provenance.AllowChangeNames) that may differ between the sides:
	// the report then starts with what changed. By default a defining key
	// that differs refuses the comparison (provenance.Compare).
	AllowChange []string
	// AllowBusy compares sides whose client was beyond its health limits,
	// or whose clients differ (compareHealth), with a warning; by default
	// such a side is refused before any figure.
	AllowBusy bool
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
	// interim: a sequential gate's look before its last, whose tiny α a
	// figure over runs may never reach (checkRuns): it is judged at the
	// last look.
	interim bool
	// tolScale scales every tolerance (0: as given): a futility look's.
	tolScale float64
	// futility is a sequential gate's futility look at this information
	// fraction (0: not one): a figure keeps the candidate going, and is
	// reported as a regression, when its conditional power is at least
	// futilityPower (family.judge).
	futility float64
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
