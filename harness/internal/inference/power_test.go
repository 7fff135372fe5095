package inference

import (
	"math"
	"testing"
)

func TestZFirst(t *testing.T) {
	cases := map[string]struct {
		alpha float64
		m     int
		want  float64
	}{
		"one test at 0.05":       {0.05, 1, 1.6449},
		"five tests at 0.05":     {0.05, 5, 2.3263}, // Φ⁻¹(0.99)
		"an empty family is one": {0.05, 0, 1.6449},
		"one test at 0.005":      {0.005, 1, 2.5758},
		"twenty tests at 0.025":  {0.025, 20, 3.0233}, // Φ⁻¹(1 − 0.00125)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ZFirst(tc.alpha, tc.m); math.Abs(got-tc.want) > 1e-4 {
				t.Errorf("ZFirst(%g, %d) = %.4f, want %.4f", tc.alpha, tc.m, got, tc.want)
			}
		})
	}
}

func TestSolve(t *testing.T) {
	cases := map[string]struct {
		p    func(float64) float64
		hi   float64
		want float64
	}{
		"linear":        {p: func(x float64) float64 { return x }, hi: 1, want: Power},
		"reached at hi": {p: func(x float64) float64 { return x / 2 }, hi: 1.6, want: 1.6},
		"never reached": {p: func(x float64) float64 { return math.Min(x, 0.5) }, hi: 10, want: math.Inf(1)},
		"empty range":   {p: func(x float64) float64 { return 1 }, hi: 0, want: math.Inf(1)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Solve(tc.p, tc.hi)
			if math.IsInf(tc.want, 1) != math.IsInf(got, 1) || !math.IsInf(got, 1) && math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Solve = %v, want %v", got, tc.want)
			}
		})
	}
}

// The power functions against their closed forms: without a tolerance
// only the test must clear its bar, and a tolerance can only lower the
// power.
func TestPowerFunctions(t *testing.T) {
	z := NormQuantile(0.95)
	cases := map[string]struct {
		got, want float64
	}{
		"latency, no tolerance":    {LatencyPower(3, 0.1, z, 0.2, 0, 1), NormCDF(3 - z)},
		"latency, 4× the requests": {LatencyPower(1.5, 0.1, z, 0.2, 0, 4), NormCDF(3 - z)},
		"latency, tolerance":       {LatencyPower(3, 0.1, z, 0.2, 0.1, 1), NormCDF(3-z) * NormCDF(1)},
		"proportion, no change":    {ProportionPower(0.1, 0, 0, 100, 100, z), 0.05},
		"cases, no change":         {CasesFlagged(0, 10, 10, 4, 100, z, 0), 0.05},
		// Two cases of 10 requests a side each move the statistic by 5
		// each, against noise of variance 4 plus their own, 2·10⁴/(20²·19).
		"cases, no tolerance": {CasesFlagged(2, 10, 10, 4, 100, z, 0), NormCDF(10/math.Sqrt(4+2*1e4/(400*19)) - z)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if math.Abs(tc.got-tc.want) > 1e-9 {
				t.Errorf("got %.6g, want %.6g", tc.got, tc.want)
			}
		})
	}
	if with, without := CasesFlagged(2, 10, 10, 4, 100, z, 0.05), CasesFlagged(2, 10, 10, 4, 100, z, 0); !(with < without) {
		t.Errorf("a tolerance raised the power of the paired test: %.4g with, %.4g without", with, without)
	}
}
