package inference

import (
	"math"
	"sort"
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
