package inference

import (
	"math"
	"math/rand/v2"
	"testing"
)

// levels draws runs × n lognormal latencies per side at each of k levels,
// the new side's multiplied by scale, every run by its own drift factor.
func tailLevels(rng *rand.Rand, k, runs, n int, scale, drift float64) []LevelRuns {
	var out []LevelRuns
	for range k {
		var lr LevelRuns
		for side := range 2 {
			for range runs {
				f := math.Exp(drift * rng.NormFloat64())
				if side == 1 {
					f *= scale
				}
				vals := make([]float64, n)
				for i := range vals {
					vals[i] = 100 * f * math.Exp(0.2*rng.NormFloat64())
				}
				lr.Runs[side] = append(lr.Runs[side], vals)
			}
		}
		out = append(out, lr)
	}
	return out
}

// The rank test holds its level under no change, sees a change, and its
// drift correction is what holds the level when runs drift.
func TestTailTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const trials = 400
	rate := func(scale, drift float64, p int, corrected bool) float64 {
		hits := 0
		for range trials {
			tt := RunTailTest(tailLevels(rng, 3, 10, 20, scale, drift), p)
			z := tt.Z
			if !corrected {
				z = tt.ZRaw
			}
			if z > NormQuantile(1-0.025) {
				hits++
			}
		}
		return float64(hits) / trials
	}
	for _, p := range []int{50, 95} {
		if r := rate(1, 0, p, true); r > 0.05 {
			t.Errorf("p%d, no change: %.3f rejected at 0.025 one-sided, want ≤ 0.05", p, r)
		}
		if r := rate(1.1, 0, p, true); r < 0.8 {
			t.Errorf("p%d, +10%%: power %.3f, want ≥ 0.8", p, r)
		}
		// Runs that drift by 8% (lognormal σ) around an unchanged mean.
		raw, fixed := rate(1, 0.08, p, false), rate(1, 0.08, p, true)
		t.Logf("p%d under drift: %.3f rejected without the correction, %.3f with", p, raw, fixed)
		if fixed > 0.05 || raw < 2*fixed || raw < 0.05 {
			t.Errorf("p%d under drift: %.3f rejected without the correction, %.3f with; want the correction to hold 0.05 and the raw test not", p, raw, fixed)
		}
	}
}

// expectedZ predicts the test's mean z under a uniform slowdown.
func TestTailExpectedZ(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, p := range []int{50, 95} {
		base := RunTailTest(tailLevels(rng, 3, 10, 20, 1, 0), p)
		want := base.ExpectedZ(math.Log(1.1))
		var sum float64
		const trials = 200
		for range trials {
			sum += RunTailTest(tailLevels(rng, 3, 10, 20, 1.1, 0), p).Z
		}
		if got := sum / trials; math.Abs(got-want) > 0.15*want {
			t.Errorf("p%d: mean z %.2f over %d trials, predicted %.2f", p, got, trials, want)
		}
	}
}
