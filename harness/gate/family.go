package gate

import "github.com/llmsla/llmsla/harness/internal/inference"

// The gate asks of each figure one question — is the candidate worse? —
// and the figures fall into three kinds, each its own family under
// Holm–Bonferroni with its own α, so that adding a scenario, which adds
// latency and run figures, does not make the gate blind to quality:
//
//	latency  per-request latency percentiles of each scenario × endpoint
//	quality  per-request proportions: accuracy, schema-valid, json-valid
//	         and errors, of each scenario × endpoint
//	runs     every other figure, compared over runs (Mann-Whitney)
//
// The tests are one-sided: within a family Holm bounds the probability of
// any false alarm at α, and the gate's at the sum over the families (in
// practice far less: a regression must also exceed its tolerance).
// Improvements are the same tests the other way round at the same level;
// they are listed, and never fail the gate.
const (
	FamilyLatency = "latency"
	FamilyQuality = "quality"
	FamilyRuns    = "runs"
)

// Family says what one correction covers.
type Family struct {
	Name  string
	Alpha float64
	// Tests is the family size Holm corrected for.
	Tests int
	// Covers says in words which tests are in it.
	Covers string
}

// test is one figure of a family.
type test struct {
	Finding
	// better is +1 when higher is better, −1 when lower is.
	better int
	// pWorse and pBetter are the one-sided p-values of the hypotheses that
	// the new side is no worse, and no better.
	pWorse, pBetter float64
}

// worse reports whether the estimate moved in the worse direction.
func (t test) worse() bool { return (t.New-t.Old)*float64(t.better) < 0 }

// family is a Family with its tests, before judging.
type family struct {
	Family
	tests []test
}

// judge applies Holm–Bonferroni within the family to the one-sided
// p-values of each direction, then the tolerance, and adds the outcome to
// rep: a regression is a figure significantly worse whose estimate is
// worse by more than its tolerance; an improvement the same the other way.
//
// j.tolScale, when not 0, scales every tolerance (a sequential gate's
// futility look asks whether a change even half the tolerance shows). At
// a futility look (j.futility) a figure counts as a regression while it
// might still become one: worse beyond its scaled tolerance, with a
// conditional power of at least futilityPower to be flagged at the end —
// its raw p-value, not Holm's, so that one figure's promise is not
// diluted by the family's size, and flagged at the family's α over its
// size (Bonferroni), what Holm asks of its smallest p-value.
func (f *family) judge(rep *Report, j judging) {
	opts, scale := j.Options, j.tolScale
	f.Tests = len(f.tests)
	rep.Families = append(rep.Families, f.Family)
	worse, better := make([]float64, len(f.tests)), make([]float64, len(f.tests))
	for i, t := range f.tests {
		worse[i], better[i] = t.pWorse, t.pBetter
	}
	adjWorse, adjBetter := inference.HolmAdjust(worse), inference.HolmAdjust(better)
	for i, t := range f.tests {
		t.Family = f.Name
		t.Tolerance = toleranceFor(t.Unit, opts.Tolerance)
		if scale != 0 {
			t.Tolerance.Rel, t.Tolerance.Abs = scale*t.Tolerance.Rel, scale*t.Tolerance.Abs
		}
		beyond := t.Tolerance.exceeded(t.Old, t.New)
		t.P, t.PAdj = t.pWorse, adjWorse[i]
		switch {
		case j.futility > 0:
			if beyond && t.worse() && inference.ConditionalPower(t.pWorse, j.futility, f.Alpha/float64(len(f.tests))) >= futilityPower {
				rep.Regressions = append(rep.Regressions, t.Finding)
			} else {
				rep.Unchanged++
			}
		case beyond && t.worse() && adjWorse[i] <= f.Alpha:
			rep.Regressions = append(rep.Regressions, t.Finding)
		case beyond && !t.worse() && adjBetter[i] <= f.Alpha:
			t.P, t.PAdj = t.pBetter, adjBetter[i]
			rep.Improvements = append(rep.Improvements, t.Finding)
		default:
			rep.Unchanged++
		}
	}
}
