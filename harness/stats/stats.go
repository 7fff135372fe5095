// Package stats summarises samples: the third stage of llmsla's pipeline.
//
// [Summarize] turns the samples of a run (one scenario × endpoint × level,
// its repetitions pooled) into [Stats] as METRICS.md defines them; every
// field is computed from the samples, so runs and shards merge by pooling
// samples, never by averaging summaries. [Describe] gives the order
// statistics every figure uses:
// percentiles by linear interpolation between closest ranks (numpy's
// default, also vLLM's and k6's), with min, max, mean, stddev and n.
package stats

import (
	"math"
	"slices"
)

// Summary describes one sample of values. N is reported beside every
// percentile: a p99 of 20 values is their maximum.
type Summary struct {
	N                  int
	Min, Max           float64
	Mean, Stddev       float64 // Stddev is the sample standard deviation (n − 1)
	P50, P90, P95, P99 float64
	// sorted are the values described, in order, for the intervals of
	// their percentiles (Sorted); nil for a histogram's summary.
	sorted []float64
}

// Sorted returns the values s describes, in order; nil when s was
// estimated from a histogram. The caller must not change them.
func (s Summary) Sorted() []float64 { return s.sorted }

// Describe describes xs; it sorts a copy, leaving xs as it was. An empty
// xs gives a Summary with N == 0 and NaN elsewhere, never a zero that could
// be read as a measurement.
func Describe(xs []float64) Summary {
	if len(xs) == 0 {
		nan := math.NaN()
		return Summary{Min: nan, Max: nan, Mean: nan, Stddev: nan, P50: nan, P90: nan, P95: nan, P99: nan}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(len(s))
	var ss float64
	for _, x := range s {
		ss += (x - mean) * (x - mean)
	}
	sd := 0.0
	if len(s) > 1 {
		sd = math.Sqrt(ss / float64(len(s)-1))
	}
	return Summary{
		N: len(s), Min: s[0], Max: s[len(s)-1], Mean: mean, Stddev: sd,
		P50: Percentile(s, 50), P90: Percentile(s, 90), P95: Percentile(s, 95), P99: Percentile(s, 99),
		sorted: s,
	}
}

// Percentile returns the p-th percentile (0–100) of sorted values: the value
// at rank p/100·(n−1), interpolated linearly between its two neighbours.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	rank := p / 100 * float64(n-1)
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	if lo < 0 {
		return sorted[0]
	}
	if hi >= n {
		return sorted[n-1]
	}
	return sorted[lo] + (sorted[hi]-sorted[lo])*(rank-float64(lo))
}

// At returns the named percentile of s (50, 90, 95 or 99), and false for any
// other.
func (s Summary) At(p int) (float64, bool) {
	switch p {
	case 50:
		return s.P50, true
	case 90:
		return s.P90, true
	case 95:
		return s.P95, true
	case 99:
		return s.P99, true
	}
	return math.NaN(), false
}
