package gate

import (
	"math"
	"sort"

	"github.com/aclements/go-moremath/mathx"
)

// HolmAdjust returns Holm–Bonferroni adjusted p-values, in the order of p.
// Rejecting every hypothesis whose adjusted p is ≤ α bounds the family-wise
// error rate at α, whatever the dependence between the tests.
//
// With the m p-values sorted ascending, p(1) ≤ … ≤ p(m), the adjusted value
// of p(k) is max over j ≤ k of min(1, (m−j+1)·p(j)). The running max is what
// makes the procedure step down: once one hypothesis is kept, every larger
// p-value is kept too.
func HolmAdjust(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, m)
	running := 0.0
	for k, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-k)*p[i]))
		adj[i] = running
	}
	return adj
}

// minP is the smallest two-sided p-value the exact Mann-Whitney U test can
// give for samples of n1 and n2 values without ties: the two most extreme
// of the C(n1+n2, n1) equally likely orderings.
func minP(n1, n2 int) float64 {
	// C(n1+n2, n1) is exact for the small counts that matter, and +Inf
	// (p = 0) long after any alpha is reachable.
	return math.Min(1, 2/mathx.Choose(n1+n2, n1))
}

// runsNeeded is the smallest equal number of runs per side with which the
// U test can reach p ≤ alpha at all.
func runsNeeded(alpha float64) int {
	n := 1
	for minP(n, n) > alpha && n < 1000 {
		n++
	}
	return n
}

// minP1 is the smallest one-sided p-value of the U test, which the gate
// uses (it asks whether the candidate is worse): half of minP.
func minP1(n1, n2 int) float64 { return minP(n1, n2) / 2 }

// runsNeeded1 is the smallest equal number of runs per side with which the
// one-sided U test can reach p ≤ alpha.
func runsNeeded1(alpha float64) int { return runsNeeded(2 * alpha) }
