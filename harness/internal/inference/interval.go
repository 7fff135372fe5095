package inference

import (
	"math"

	"github.com/aclements/go-moremath/mathx"
	mstats "github.com/aclements/go-moremath/stats"
)

// Intervals at a fixed sample size: what a run that sent its configured
// count reports beside each percentile and rate.

// QuantileRanks returns the order statistics that bound an exact,
// equal-tailed confidence interval at conf for the q-quantile (0 < q < 1)
// of a continuous distribution, from n draws: the interval is
// [X(lo), X(hi)], ranks from 1, lo = 0 meaning −∞ and hi = n+1 meaning +∞
// (the sample is too small to bound that side). The number of draws below
// the true quantile is Binomial(n, q), whatever the distribution, so the
// interval covers it with probability at least conf at every n: no normal
// approximation, and a p99 of 40 values says its upper bound is unknown.
func QuantileRanks(n int, q, conf float64) (lo, hi int) {
	if n <= 0 {
		return 0, 1
	}
	tail := (1 - conf) / 2
	b := mstats.BinomialDist{N: n, P: q}
	// Start five standard deviations out, so that a run of 10,000
	// requests walks a few dozen ranks, not thousands.
	sd := math.Sqrt(float64(n) * q * (1 - q))
	// Q ≥ X(lo) unless fewer than lo draws fall below Q: P(B ≤ lo−1) ≤ tail.
	lo = max(0, int(float64(n)*q-5*sd))
	for lo > 0 && b.CDF(float64(lo-1)) > tail {
		lo--
	}
	for lo < n && b.CDF(float64(lo)) <= tail {
		lo++
	}
	// Q ≤ X(hi) unless hi or more draws fall below Q: P(B ≥ hi) ≤ tail.
	hi = min(n+1, int(float64(n)*q+5*sd)+2)
	for hi <= n && 1-b.CDF(float64(hi-2)) > tail {
		hi++
	}
	for hi > 1 && 1-b.CDF(float64(hi-2)) <= tail {
		hi--
	}
	return lo, hi
}

// ClopperPearson returns the exact equal-tailed confidence interval at
// conf of a rate with k successes in n trials: each bound is where the
// binomial tail at the observed k is (1−conf)/2. n = 0 gives [0, 1].
func ClopperPearson(k, n int, conf float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	tail := (1 - conf) / 2
	lo, hi = 0, 1
	if k > 0 {
		// P(B ≥ k | p) = I_p(k, n−k+1) rises with p.
		lo = bisect(func(p float64) bool { return mathx.BetaInc(p, float64(k), float64(n-k+1)) < tail })
	}
	if k < n {
		// P(B ≤ k | p) = 1 − I_p(k+1, n−k) falls with p.
		hi = bisect(func(p float64) bool { return 1-mathx.BetaInc(p, float64(k+1), float64(n-k)) > tail })
	}
	return lo, hi
}

// bisect returns the p in [0, 1] where below turns from true to false.
func bisect(below func(p float64) bool) float64 {
	a, b := 0.0, 1.0
	for range 60 {
		m := (a + b) / 2
		if below(m) {
			a = m
		} else {
			b = m
		}
	}
	return (a + b) / 2
}

// Quantile is the value of order statistic rank (from 1) of sorted, −∞
// below the first and +∞ beyond the last: what the ranks of QuantileRanks
// and SequenceRanks read as an interval.
func Quantile(sorted []float64, rank int) float64 {
	switch {
	case rank < 1:
		return math.Inf(-1)
	case rank > len(sorted):
		return math.Inf(1)
	}
	return sorted[rank-1]
}
