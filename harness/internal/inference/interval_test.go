package inference

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The coverage tests draw from a lognormal whose quantiles are known, and
// count how often the interval misses: the error rate each interval
// states, within the slack of the simulation (a binomial's three standard
// deviations over the runs).

const conf = 0.95

func lognormalQuantile(q, sigma float64) float64 { return math.Exp(sigma * NormQuantile(q)) }

func slack(runs int, p float64) float64 { return 3 * math.Sqrt(p*(1-p)/float64(runs)) }

func TestQuantileRanksCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const runs = 400
	for _, c := range []struct {
		n int
		q float64
	}{{40, 0.95}, {200, 0.95}, {30, 0.5}, {500, 0.99}} {
		truth := lognormalQuantile(c.q, 0.5)
		lo, hi := QuantileRanks(c.n, c.q, conf)
		miss := 0
		xs := make([]float64, c.n)
		for range runs {
			for i := range xs {
				xs[i] = math.Exp(0.5 * rng.NormFloat64())
			}
			slices.Sort(xs)
			if Quantile(xs, lo) > truth || Quantile(xs, hi) < truth {
				miss++
			}
		}
		if got := float64(miss) / runs; got > 1-conf+slack(runs, 1-conf) {
			t.Errorf("n=%d q=%v: ranks [%d, %d] missed the truth in %.1f%% of %d runs, want ≤ %.0f%%", c.n, c.q, lo, hi, 100*got, runs, 100*(1-conf))
		}
	}
}

func TestQuantileRanksEdges(t *testing.T) {
	// A p99 of 40 values cannot bound its upper side at 95%: P(all 40
	// below the p99) = 0.99^40 = 0.67.
	if _, hi := QuantileRanks(40, 0.99, conf); hi != 41 {
		t.Errorf("p99 of 40: upper rank %d, want 41 (+∞)", hi)
	}
	// The median of 10: ranks 2 and 9 (P(B ≤ 1) = 11/1024 ≤ 2.5%,
	// P(B ≤ 2) = 56/1024 > 2.5%).
	if lo, hi := QuantileRanks(10, 0.5, conf); lo != 2 || hi != 9 {
		t.Errorf("median of 10: ranks [%d, %d], want [2, 9]", lo, hi)
	}
}

func TestClopperPearson(t *testing.T) {
	// Known values: 0 of 10 → [0, 0.3085]; 5 of 10 → [0.1871, 0.8129].
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{0, 10, 0, 0.30850}, {5, 10, 0.18709, 0.81291}, {10, 10, 0.69150, 1}} {
		lo, hi := ClopperPearson(c.k, c.n, conf)
		if math.Abs(lo-c.lo) > 1e-4 || math.Abs(hi-c.hi) > 1e-4 {
			t.Errorf("%d of %d: [%.5f, %.5f], want [%.5f, %.5f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const runs = 400
	for _, p := range []float64{0.01, 0.1, 0.9} {
		miss := 0
		for range runs {
			k := 0
			for range 200 {
				if rng.Float64() < p {
					k++
				}
			}
			if lo, hi := ClopperPearson(k, 200, conf); p < lo || p > hi {
				miss++
			}
		}
		if got := float64(miss) / runs; got > 1-conf+slack(runs, 1-conf) {
			t.Errorf("p=%v: missed in %.1f%% of %d runs", p, 100*got, runs)
		}
	}
}

// TestSequenceCoverage checks the anytime guarantee: over every t up to
// the horizon at once, each side of the sequence misses the truth in at
// most α of runs (a decision reads one side: it is wrong at most that
// often), the interval in at most 2α.
func TestSequenceCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const runs, horizon, alpha = 200, 300, 0.05
	s := NewSequence(alpha, horizon)
	for _, q := range []float64{0.5, 0.95} {
		truth := lognormalQuantile(q, 0.5)
		// misses of the quantile's and the rate's lower and upper sides
		var miss [2][2]int
		for range runs {
			var xs []float64
			below := 0
			var missed [2][2]bool
			for n := 1; n <= horizon; n++ {
				x := math.Exp(0.5 * rng.NormFloat64())
				xs = append(xs, x)
				if x <= truth {
					below++
				}
				if n%5 != 0 && n != horizon {
					continue // looking every 5th draw is enough to see a miss
				}
				slices.Sort(xs)
				lo, hi := s.Ranks(n, q)
				missed[0][0] = missed[0][0] || Quantile(xs, lo) > truth
				missed[0][1] = missed[0][1] || Quantile(xs, hi) < truth
				plo, phi := s.Rate(below, n)
				missed[1][0] = missed[1][0] || q < plo
				missed[1][1] = missed[1][1] || q > phi
			}
			for i := range missed {
				for j := range missed[i] {
					if missed[i][j] {
						miss[i][j]++
					}
				}
			}
		}
		for i, what := range []string{"quantile", "rate"} {
			for j, side := range []string{"lower", "upper"} {
				if got := float64(miss[i][j]) / runs; got > alpha+slack(runs, alpha) {
					t.Errorf("q=%v: the %s sequence's %s side ever missed in %.1f%% of %d runs, want ≤ %.0f%%", q, what, side, 100*got, runs, 100*alpha)
				}
			}
			if got := float64(miss[i][0]+miss[i][1]) / runs; got > 1-s.Conf()+slack(runs, 1-s.Conf()) {
				t.Errorf("q=%v: the %s sequence ever missed in %.1f%% of %d runs, want ≤ %.0f%%", q, what, 100*got, runs, 100*(1-s.Conf()))
			}
		}
	}
}

// TestSequenceNarrows checks that the sequence is worth having: wider
// than the fixed-n interval (the price of looking) but within a small
// factor of it, and narrowing as draws come.
func TestSequenceNarrows(t *testing.T) {
	s := NewSequence(0.05, 200)
	for _, n := range []int{50, 200, 1000} {
		flo, fhi := QuantileRanks(n, 0.5, conf)
		slo, shi := s.Ranks(n, 0.5)
		if shi-slo < fhi-flo || shi-slo > 3*(fhi-flo) {
			t.Errorf("n=%d: sequence ranks [%d, %d], fixed [%d, %d]: want wider by at most 3×", n, slo, shi, flo, fhi)
		}
	}
	lo1, hi1 := s.Rate(20, 100)
	lo2, hi2 := s.Rate(200, 1000)
	if !(hi2-lo2 < hi1-lo1) || lo1 > 0.2 || hi1 < 0.2 {
		t.Errorf("rate: [%.3f, %.3f] at 100, [%.3f, %.3f] at 1000", lo1, hi1, lo2, hi2)
	}
}

func TestSequenceDecide(t *testing.T) {
	s := NewSequence(0.05, 200)
	if d := s.Decide(0, 300, 0.05); d != -1 {
		t.Errorf("0 failures of 300 against 5%%: %d, want −1 (below)", d)
	}
	if d := s.Decide(0, 5, 0.05); d != 0 {
		t.Errorf("0 failures of 5 against 5%%: %d, want 0 (undecided)", d)
	}
	if d := s.Decide(60, 100, 0.05); d != 1 {
		t.Errorf("60 of 100 against 5%%: %d, want 1 (above)", d)
	}
}

// TestQuantileRanksWalk: starting near the answer gives the ranks a walk
// from the ends gives.
func TestQuantileRanksWalk(t *testing.T) {
	naive := func(n int, q float64) (int, int) {
		tail := (1 - conf) / 2
		lo, hi := 0, n+1
		for lo < n && binomCDF(n, q, lo) <= tail {
			lo++
		}
		for hi > 1 && 1-binomCDF(n, q, hi-2) <= tail {
			hi--
		}
		return lo, hi
	}
	for _, n := range []int{1, 2, 5, 20, 72, 73, 300, 2000} {
		for _, q := range []float64{0.5, 0.9, 0.95, 0.99} {
			lo, hi := QuantileRanks(n, q, conf)
			wlo, whi := naive(n, q)
			if lo != wlo || hi != whi {
				t.Errorf("n=%d q=%v: [%d, %d], the walk from the ends [%d, %d]", n, q, lo, hi, wlo, whi)
			}
		}
	}
}

func binomCDF(n int, q float64, k int) float64 {
	p := 0.0
	for i := 0; i <= k; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		p += math.Exp(lc - a - b + float64(i)*math.Log(q) + float64(n-i)*math.Log1p(-q))
	}
	return p
}
