package stats

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Buckets is a histogram's increase over a level: counts per bucket (not
// cumulative) under upper bounds in seconds, the last count above every
// bound. The zero value is a histogram not read; Bad one whose runs had
// different buckets.
type Buckets struct {
	Bounds []float64
	Counts []float64
	Bad    bool
}

// N is the observations the histogram counted over the level.
func (b Buckets) N() float64 {
	if b.Bad {
		return 0
	}
	var n float64
	for _, c := range b.Counts {
		n += c
	}
	return n
}

// Add adds o's counts to b; false when their buckets differ, which
// leaves b Bad.
func (b *Buckets) Add(o Buckets) bool {
	switch {
	case o.Counts == nil && !o.Bad:
		return true
	case b.Counts == nil && !b.Bad:
		*b = Buckets{Bounds: o.Bounds, Counts: slices.Clone(o.Counts), Bad: o.Bad}
		return !o.Bad
	case b.Bad || o.Bad || !slices.Equal(b.Bounds, o.Bounds):
		*b = Buckets{Bad: true}
		return false
	}
	for i, c := range o.Counts {
		b.Counts[i] += c
	}
	return true
}

// Within says between which bucket bounds the p-th percentile of the
// observations lies, in seconds, as Percentile defines it (rank p/100·(n−1)
// between its two closest order statistics): the lower bound of the
// bucket holding the one below, the upper of the one above (+Inf past the
// last bound). ok is false when nothing was counted.
func (b Buckets) Within(p float64) (lo, hi float64, ok bool) {
	n := b.N()
	if n == 0 {
		return math.NaN(), math.NaN(), false
	}
	rank := p / 100 * (n - 1)
	lo, _ = b.bucket(math.Floor(rank))
	_, hi = b.bucket(math.Ceil(rank))
	return lo, hi, true
}

// bucket returns the bounds of the bucket holding the k-th smallest
// observation (from 0).
func (b Buckets) bucket(k float64) (lo, hi float64) {
	var cum float64
	for i, c := range b.Counts {
		cum += c
		if cum > k {
			lo, hi = 0, math.Inf(1)
			if i > 0 {
				lo = b.Bounds[i-1]
			}
			if i < len(b.Bounds) {
				hi = b.Bounds[i]
			}
			return lo, hi
		}
	}
	return b.Bounds[len(b.Bounds)-1], math.Inf(1)
}

// Estimate is the p-th percentile estimated as Prometheus's
// histogram_quantile does (linear within its bucket; the highest finite
// bound for the bucket above them all), kept within Within's bounds; in
// seconds, NaN when nothing was counted.
func (b Buckets) Estimate(p float64) float64 {
	lo, hi, ok := b.Within(p)
	if !ok {
		return math.NaN()
	}
	rank := p / 100 * b.N()
	var cum float64
	est := lo
	for i, c := range b.Counts {
		if cum+c >= rank && c > 0 {
			if i == len(b.Bounds) {
				est = b.Bounds[len(b.Bounds)-1]
				break
			}
			from := 0.0
			if i > 0 {
				from = b.Bounds[i-1]
			}
			est = from + (b.Bounds[i]-from)*(rank-cum)/c
			break
		}
		cum += c
	}
	return math.Min(math.Max(est, lo), hi)
}

// Summary is the histogram as a latency distribution in milliseconds:
// its estimated percentiles and count (min, max, mean and stddev are not
// in a histogram, and are NaN).
func (b Buckets) Summary() Summary {
	nan := math.NaN()
	s := Summary{N: int(b.N()), Min: nan, Max: nan, Mean: nan, Stddev: nan}
	for _, p := range []struct {
		to *float64
		p  float64
	}{{&s.P50, 50}, {&s.P90, 90}, {&s.P95, 95}, {&s.P99, 99}} {
		*p.to = b.Estimate(p.p) * 1000
	}
	return s
}

// WithinText writes a percentile's bounds in ms: "(40, 60] ms".
func (b Buckets) WithinText(p float64) string {
	lo, hi, ok := b.Within(p)
	if !ok {
		return "not measured"
	}
	return fmt.Sprintf("(%s, %s] ms", msText(lo), msText(hi))
}

func msText(sec float64) string {
	if math.IsInf(sec, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(math.Round(sec*1e6)/1e3, 'f', -1, 64) // ms, to the µs
}
