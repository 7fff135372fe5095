package stats

import (
	"github.com/llmsla/llmsla/harness/sample"
)

// DescribeHist describes the durations counted in h, in milliseconds, as
// Describe does raw values: N, Min, Max and Mean exact, percentiles within
// the histogram's 1/128 relative error (see sample.Hist), Stddev from its
// buckets. An empty h gives N == 0 and NaN elsewhere.
func DescribeHist(h *sample.Hist) Summary {
	if h == nil || h.N == 0 {
		return Describe(nil)
	}
	const ms = 1e6
	return Summary{
		N: int(h.N), Min: float64(h.Min) / ms, Max: float64(h.Max) / ms,
		Mean: float64(h.Sum) / float64(h.N) / ms, Stddev: h.Stddev() / ms,
		P50: h.Percentile(50) / ms, P90: h.Percentile(90) / ms, P95: h.Percentile(95) / ms, P99: h.Percentile(99) / ms,
	}
}
