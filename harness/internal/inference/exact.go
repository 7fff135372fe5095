package inference

import (
	"math"

	mstats "github.com/aclements/go-moremath/stats"
)

// Stratum is one 2×2 table of a proportion test: of N[i] requests on side
// i (0 the base, 1 the new one), Bad[i] failed the check.
type Stratum struct{ Bad, N [2]int }

// Exact is the outcome of the exact stratified test.
type Exact struct {
	// PWorse is P(T ≥ t) and PBetter P(T ≤ t), one-sided, for T the new
	// side's failures summed over strata.
	PWorse, PBetter float64
	// Mean and Var are T's under no change, Obs its observed value:
	// (Obs−Mean)/√Var is Mantel–Haenszel's z.
	Mean, Var, Obs float64
	// Informative counts the strata that carry evidence: both sides
	// asked, and both outcomes seen.
	Informative int
}

// ExactStratified tests whether the new side fails more or less often than
// the base within strata, without assuming anything of how rates differ
// between strata. The statistic is the new side's failures summed over
// strata (Mantel–Haenszel's); given each stratum's margins its failures
// are hypergeometric under no change, so the exact distribution of the sum
// is the convolution of the strata's hypergeometrics. With one stratum this
// is Fisher's exact test; with strata of one request per side it is
// McNemar's test on the discordant pairs — the case where pairing by
// fixture case is plainest: a case answered right on both sides or wrong
// on both says nothing about a change, and drops out.
func ExactStratified(strata []Stratum) Exact {
	dist := []float64{1} // P(T − lo = t)
	lo := 0
	var e Exact
	for _, s := range strata {
		n0, n1 := s.N[0], s.N[1]
		total, bad := n0+n1, s.Bad[0]+s.Bad[1]
		if n0 == 0 || n1 == 0 || bad == 0 || bad == total {
			// One side did not ask it, or every request had the same
			// outcome: T's part is fixed, and says nothing.
			e.Obs += float64(s.Bad[1])
			e.Mean += float64(s.Bad[1])
			lo += s.Bad[1]
			continue
		}
		e.Informative++
		h, least := hypergeometric(total, bad, n1)
		lo += least
		e.Obs += float64(s.Bad[1])
		N, K, n := float64(total), float64(bad), float64(n1)
		e.Mean += n * K / N
		e.Var += n * K * (N - K) * (N - n) / (N * N * (N - 1))
		dist = convolve(dist, h)
	}
	t := int(e.Obs) - lo
	for i, p := range dist {
		if i >= t {
			e.PWorse += p
		}
		if i <= t {
			e.PBetter += p
		}
	}
	e.PWorse, e.PBetter = math.Min(1, e.PWorse), math.Min(1, e.PBetter)
	return e
}

// hypergeometric returns P(X = lo+i) for X the failures among n draws
// from total requests of which bad failed, and lo, X's smallest value.
func hypergeometric(total, bad, n int) ([]float64, int) {
	d := mstats.HypergeometicDist{N: total, K: bad, Draws: n}
	lo, hi := d.Bounds()
	h := make([]float64, int(hi-lo)+1)
	for i := range h {
		h[i] = d.PMF(lo + float64(i))
	}
	return h, int(lo)
}

func convolve(a, b []float64) []float64 {
	out := make([]float64, len(a)+len(b)-1)
	for i, x := range a {
		if x == 0 {
			continue
		}
		for j, y := range b {
			out[i+j] += x * y
		}
	}
	return out
}
