package inference

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The boundaries of Lan–DeMets's O'Brien–Fleming-like spending at one-sided
// 0.025 over five equally spaced looks, as gsDesign (R) gives them
// (gsDesign(k=5, test.type=1, sfu=sfLDOF)$upper$bound).
func TestSpendingLevelsKnown(t *testing.T) {
	want := []float64{4.8769, 3.3569, 2.6803, 2.2898, 2.0310}
	levels := SpendingLevels(0.025, []float64{0.2, 0.4, 0.6, 0.8, 1})
	for k, l := range levels {
		if z := -NormQuantile(l); math.Abs(z-want[k]) > 2e-3 {
			t.Errorf("look %d: boundary z %.4f, want %.4f", k+1, z, want[k])
		}
	}
	if one := SpendingLevels(0.05, []float64{1}); one[0] != 0.05 {
		t.Errorf("one look: level %g, want 0.05", one[0])
	}
}

// Over simulated designs — a Brownian motion looked at unequally — the
// levels reject a true null at most α of the time, and Bonferroni over
// the looks' spending is stricter at the last.
func TestSpendingLevelsError(t *testing.T) {
	const alpha, trials = 0.05, 200000
	ts := []float64{0.4, 0.55, 0.75, 1}
	levels := SpendingLevels(alpha, ts)
	rng := rand.New(rand.NewPCG(1, 2))
	rejected := 0
	for range trials {
		s, prev := 0.0, 0.0
		for k, tk := range ts {
			s += math.Sqrt(tk-prev) * rng.NormFloat64()
			prev = tk
			if NormCDF(-s/math.Sqrt(tk)) <= levels[k] {
				rejected++
				break
			}
		}
	}
	rate := float64(rejected) / trials
	if se := math.Sqrt(alpha * (1 - alpha) / trials); math.Abs(rate-alpha) > 4*se {
		t.Errorf("rejected %.4f of null designs, want %.3f ± %.4f; levels %v", rate, alpha, 4*se, levels)
	}
	if bonf := alpha - Spend(alpha, ts[len(ts)-2]); levels[len(levels)-1] <= bonf {
		t.Errorf("last look's level %.4f, not above Bonferroni's %.4f", levels[len(levels)-1], bonf)
	}
	t.Logf("levels %v; rejected %.4f", levels, rate)
}

// TestConditionalPower: at the current trend, a test halfway through at
// z = c·√t ends exactly at c on average (power ½); a stronger trend more,
// a weaker less; and the values of Φ((z/√t − c)/√(1−t)) worked by hand.
func TestConditionalPower(t *testing.T) {
	c := NormQuantile(1 - 0.01)
	for name, tc := range map[string]struct {
		p, t, alpha, want float64
	}{
		"on course":         {1 - NormCDF(c*math.Sqrt(0.5)), 0.5, 0.01, 0.5},
		"p 0.05 at 40%":     {0.05, 0.4, 0.01, 0.6384209408},
		"p 0.5: no trend":   {0.5, 0.4, 0.05, 0.0168561174},
		"the last look met": {0.01, 1, 0.05, 1},
		"the last look not": {0.06, 1, 0.05, 0},
	} {
		t.Run(name, func(t *testing.T) {
			if got := ConditionalPower(tc.p, tc.t, tc.alpha); math.Abs(got-tc.want) > 1e-8 {
				t.Errorf("ConditionalPower(%g, %g, %g) = %.6f, want %.6f", tc.p, tc.t, tc.alpha, got, tc.want)
			}
		})
	}
	if lo, hi := ConditionalPower(0.05, 0.4, 0.01), ConditionalPower(0.05, 0.7, 0.01); !(hi < lo) {
		t.Errorf("the same p-value later in the design should promise less: %.3f at 40%%, %.3f at 70%%", lo, hi)
	}
}
