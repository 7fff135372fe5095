package inference

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/mathx"
	"golang.org/x/perf/benchmath"
)

// MannWhitney returns the medians of a and b and the two-sided p-value of
// the Mann-Whitney U test between them, as benchstat computes them
// (benchmath's AssumeNothing). It takes every value for an independent
// draw: right for the figures of runs, each a run of its own, and wrong
// for requests that share a run's conditions, which RunTailTest is for.
// The p-value is 1 when either side has no value.
func MannWhitney(a, b []float64) (medA, medB, p float64) {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN(), math.NaN(), 1
	}
	thr := benchmath.DefaultThresholds
	s1 := benchmath.NewSample(slices.Clone(a), &thr) // NewSample sorts in place
	s2 := benchmath.NewSample(slices.Clone(b), &thr)
	return benchmath.AssumeNothing.Summary(s1, 0.95).Center, benchmath.AssumeNothing.Summary(s2, 0.95).Center,
		benchmath.AssumeNothing.Compare(s1, s2).P
}

// MinP is the smallest two-sided p-value the exact Mann-Whitney U test can
// give for samples of n1 and n2 values without ties: the two most extreme
// of the C(n1+n2, n1) equally likely orderings.
func MinP(n1, n2 int) float64 {
	// C(n1+n2, n1) is exact for the small counts that matter, and +Inf
	// (p = 0) long after any alpha is reachable.
	return math.Min(1, 2/mathx.Choose(n1+n2, n1))
}

// RunsNeeded is the smallest equal number of values per side with which
// the two-sided U test can reach p ≤ alpha at all: 4 at 0.05.
func RunsNeeded(alpha float64) int {
	n := 1
	for MinP(n, n) > alpha && n < 1000 {
		n++
	}
	return n
}

// MinP1 is the smallest one-sided p-value of the U test: half of MinP.
func MinP1(n1, n2 int) float64 { return MinP(n1, n2) / 2 }

// RunsNeeded1 is the smallest equal number of values per side with which
// the one-sided U test can reach p ≤ alpha.
func RunsNeeded1(alpha float64) int { return RunsNeeded(2 * alpha) }

// AllEqual reports whether every value of a and b is the same: then no
// rank test can say anything, whatever the labels (a figure at 0 in every
// run), and the figure has no place in a family of tests.
func AllEqual(a, b []float64) bool {
	for _, s := range [][]float64{a, b} {
		for _, x := range s {
			if x != a[0] {
				return false
			}
		}
	}
	return true
}
