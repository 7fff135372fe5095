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
	medA, medB = benchmath.AssumeNothing.Summary(s1, 0.95).Center, benchmath.AssumeNothing.Summary(s2, 0.95).Center
	if p, ok := exactTied(a, b); ok {
		return medA, medB, p
	}
	return medA, medB, benchmath.AssumeNothing.Compare(s1, s2).P
}

// maxExactTied is the most pooled values exactTied takes on.
const maxExactTied = 80

// exactTied is the exact two-sided p-value of the U test of samples with
// ties, conditional on the ties, when they are few enough (ok): twice the
// smaller tail of the rank sum of b over every way of drawing len(b) of the pooled values, each
// tie group contributing its mid-rank per value drawn from it. benchmath's
// exact test with ties (go-moremath's) is wrong when the sides differ in
// size: ten runs of good-% at 100 against six of which one is at 95 gave
// p = 0, where a single 95 among sixteen values is no evidence at all
// (p = 0.75), and a sequential gate's interim look, a candidate of fewer runs
// than its base, took that for a regression.
func exactTied(a, b []float64) (p float64, ok bool) {
	pooled := append(slices.Clone(a), b...)
	N := len(pooled)
	if N > maxExactTied {
		return 0, false
	}
	slices.Sort(pooled)
	inB := map[float64]int{}
	for _, x := range b {
		inB[x]++
	}
	// Each tie group: its size, its doubled mid-rank (an integer), and
	// how many of b it holds.
	type groupOf struct{ size, rank2, fromB int }
	var groups []groupOf
	tied := false
	for i := 0; i < N; {
		j := i + 1
		for j < N && pooled[j] == pooled[i] {
			j++
		}
		tied = tied || j-i > 1
		groups = append(groups, groupOf{size: j - i, rank2: i + j + 1, fromB: inB[pooled[i]]})
		i = j
	}
	if !tied {
		return 0, false
	}
	n2 := len(b)
	maxS := N * (N + 1)
	// dist[k][s]: the number of ways to draw k values with doubled rank
	// sum s from the groups so far.
	dist := make([][]float64, n2+1)
	for k := range dist {
		dist[k] = make([]float64, maxS+1)
	}
	dist[0][0] = 1
	observed := 0
	for _, g := range groups {
		observed += g.fromB * g.rank2
		next := make([][]float64, n2+1)
		for k := range next {
			next[k] = make([]float64, maxS+1)
		}
		for k := 0; k <= n2; k++ {
			for s, w := range dist[k] {
				if w == 0 {
					continue
				}
				for c := 0; c <= g.size && k+c <= n2; c++ {
					next[k+c][s+c*g.rank2] += w * mathx.Choose(g.size, c)
				}
			}
		}
		dist = next
	}
	// Twice the smaller one-sided tail: with ties the distribution is
	// not symmetric, and the gate halves this p for each direction's.
	var below, above, total float64
	for s, w := range dist[n2] {
		total += w
		if s <= observed {
			below += w
		}
		if s >= observed {
			above += w
		}
	}
	return math.Min(1, 2*math.Min(below, above)/total), true
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
