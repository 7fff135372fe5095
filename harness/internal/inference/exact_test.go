package inference

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestExactStratified(t *testing.T) {
	cases := map[string]struct {
		strata        []Stratum
		worse, better float64
	}{
		// Fisher's tea tasting: 3 of 4 cups right. P(X ≥ 3) = 17/70.
		"Fisher, one stratum": {
			strata: []Stratum{{Bad: [2]int{1, 3}, N: [2]int{4, 4}}},
			worse:  17.0 / 70, better: 69.0 / 70,
		},
		// McNemar: 8 cases pass on the base and fail on the new side,
		// 1 the other way; concordant pairs say nothing. P(Bin(9, ½) ≥ 8)
		// = 10/512.
		"McNemar, pairs by case": {
			strata: append(append(append(
				repeatStratum(Stratum{Bad: [2]int{0, 1}, N: [2]int{1, 1}}, 8),
				Stratum{Bad: [2]int{1, 0}, N: [2]int{1, 1}}),
				repeatStratum(Stratum{Bad: [2]int{0, 0}, N: [2]int{1, 1}}, 30)...),
				repeatStratum(Stratum{Bad: [2]int{1, 1}, N: [2]int{1, 1}}, 3)...),
			worse: 10.0 / 512, better: 1 - 1.0/512,
		},
		"no evidence": {
			strata: []Stratum{{Bad: [2]int{0, 0}, N: [2]int{20, 20}}, {Bad: [2]int{5, 0}, N: [2]int{5, 0}}},
			worse:  1, better: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := ExactStratified(tc.strata)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"PWorse", e.PWorse, tc.worse}, {"PBetter", e.PBetter, tc.better}} {
				if math.Abs(c.got-c.want) > 1e-9 {
					t.Errorf("%s = %.6g, want %.6g", c.what, c.got, c.want)
				}
			}
		})
	}
}

func repeatStratum(s Stratum, n int) []Stratum {
	out := make([]Stratum, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// Under no change the exact test rejects at most as often as its level
// says, whatever the strata: here cases that pass 90% of the time, one in
// five a coin, asked 5 to 20 times a side.
func TestExactStratifiedSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const trials = 2000
	rejected := 0
	for range trials {
		var ss []Stratum
		for range 30 {
			p := 0.0
			if rng.Float64() < 0.2 {
				p = 0.5
			}
			var s Stratum
			for side := range 2 {
				s.N[side] = 5 + rng.IntN(16)
				for range s.N[side] {
					if rng.Float64() < p {
						s.Bad[side]++
					}
				}
			}
			ss = append(ss, s)
		}
		if ExactStratified(ss).PWorse <= 0.05 {
			rejected++
		}
	}
	if rate := float64(rejected) / trials; rate > 0.05 {
		t.Errorf("one-sided rejections at 0.05 under no change: %.3f, want ≤ 0.05", rate)
	}
}

func TestHarrellDavis(t *testing.T) {
	// Against a distribution: the p95 of 2000 uniform draws is near 0.95.
	rng := rand.New(rand.NewPCG(4, 4))
	xs := make([]float64, 2000)
	for i := range xs {
		xs[i] = rng.Float64()
	}
	sort.Float64s(xs)
	if got := HarrellDavis(xs, 0.95); math.Abs(got-0.95) > 0.01 {
		t.Errorf("p95 of uniform draws = %.4f, want 0.95 ± 0.01", got)
	}
	// A constant sample's every quantile is the constant; weights sum to 1.
	if got := HarrellDavis([]float64{3, 3, 3, 3, 3}, 0.5); math.Abs(got-3) > 1e-12 {
		t.Errorf("median of five 3s = %v", got)
	}
	// The median of a symmetric sample is its centre.
	if got := HarrellDavis([]float64{1, 2, 3, 4, 5}, 0.5); math.Abs(got-3) > 1e-9 {
		t.Errorf("median of 1..5 = %v, want 3", got)
	}
	// mathx.BetaInc panics on the weights of a median of 150,000 values:
	// so many are weighed by rank instead.
	big := make([]float64, 150_000)
	for i := range big {
		big[i] = float64(i)
	}
	if got := HarrellDavis(big, 0.5); math.Abs(got-74_999.5) > 1 {
		t.Errorf("median of 0..149999 = %v", got)
	}
}

// studentTail against tables of Student's t, and in the far tail, where
// 1 − CDF would round it to 0.
func TestStudentTail(t *testing.T) {
	for _, c := range []struct{ x, nu, want float64 }{
		{2.228, 10, 0.025}, {1.812, 10, 0.05}, {12.706, 1, 0.025}, {1.960, 1e6, 0.025}, {0, 5, 0.5},
	} {
		if got := studentTail(c.x, c.nu); math.Abs(got-c.want) > 2e-4 {
			t.Errorf("P(T_%g > %g) = %.5f, want %.3f", c.nu, c.x, got, c.want)
		}
	}
	if got := studentTail(10, 100); !(got > 1e-17 && got < 1e-16) {
		t.Errorf("P(T_100 > 10) = %g, want about 5e-17", got)
	}
}
