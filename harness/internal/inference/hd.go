package inference

import (
	"math"

	"github.com/aclements/go-moremath/mathx"

	"github.com/llmsla/llmsla/harness/stats"
)

// HarrellDavis estimates the q-quantile (0 < q < 1) of the distribution
// sorted was drawn from, as a weighted mean of all its order statistics
// with the weights of a Beta(q(n+1), (1−q)(n+1)) distribution (Harrell and
// Davis, 1982). A percentile by interpolation between the two nearest
// ranks, as a run's report gives it, rests on two requests; this rests on
// the dozens around them. The gain is small: at the p95 of 200 lognormal
// latencies its spread from one sample to the next, measured over 20,000
// samples, is 4% smaller than the interpolated percentile's at σ 0.2, 2%
// smaller at σ 0.5 and 2% larger at σ 1, where the long tail it weighs
// moves it. BenchmarkDotNet estimates quantiles with it too.
func HarrellDavis(sorted []float64, q float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return math.NaN()
	case n == 1:
		return sorted[0]
	case n > maxHarrellDavis:
		return stats.Percentile(sorted, 100*q)
	}
	a, b := q*float64(n+1), (1-q)*float64(n+1)
	var sum, prev float64
	for i, x := range sorted {
		cur := mathx.BetaInc(float64(i+1)/float64(n), a, b)
		sum += (cur - prev) * x
		prev = cur
	}
	return sum
}

// maxHarrellDavis is the most values HarrellDavis weighs. mathx.BetaInc's
// continued fraction gives up (it panics) after 200 steps, which the
// weights of a median of more than about 120,000 values need; at such
// sizes the estimator's advantage over the interpolated percentile, whose
// asymptotic variance is the same, is gone, and n incomplete betas are
// a cost for nothing.
const maxHarrellDavis = 100_000
