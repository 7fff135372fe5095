package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPercentileMatchesNumpy(t *testing.T) {
	// Values from numpy.percentile(x, p) with the default "linear" method.
	cases := map[string]struct {
		xs   []float64
		p    float64
		want float64
	}{
		"single":      {[]float64{7}, 95, 7},
		"two p50":     {[]float64{1, 2}, 50, 1.5},
		"1..10 p95":   {[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 9.55},
		"1..10 p90":   {[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9.1},
		"1..20 p99":   {seq(20), 99, 19.81},
		"1..20 p50":   {seq(20), 50, 10.5},
		"p0 is min":   {[]float64{3, 5, 9}, 0, 3},
		"p100 is max": {[]float64{3, 5, 9}, 100, 9},
		"uneven p95":  {[]float64{10, 20, 30, 1000}, 95, 854.5},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.InDelta(t, tc.want, Percentile(tc.xs, tc.p), 1e-9)
		})
	}
}

func TestDescribe(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	s := Describe(xs)
	assert.Equal(t, 5, s.N)
	assert.Equal(t, 1.0, s.Min)
	assert.Equal(t, 5.0, s.Max)
	assert.Equal(t, 3.0, s.Mean)
	assert.InDelta(t, math.Sqrt(2.5), s.Stddev, 1e-12)
	assert.Equal(t, 3.0, s.P50)
	assert.Equal(t, []float64{5, 1, 4, 2, 3}, xs, "input must not be reordered")
}

func TestDescribeEmptyIsNaNNotZero(t *testing.T) {
	s := Describe(nil)
	assert.Equal(t, 0, s.N)
	assert.True(t, math.IsNaN(s.P95))
}

func seq(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	return xs
}
