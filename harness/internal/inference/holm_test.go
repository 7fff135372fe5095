package inference

import (
	"math"
	"testing"
)

func TestHolmAdjust(t *testing.T) {
	cases := map[string]struct {
		p, want []float64
	}{
		"empty":  {nil, []float64{}},
		"single": {[]float64{0.03}, []float64{0.03}},
		// Sorted: .005×4=.02, .01×3=.03, .03×2=.06, .04×1 raised to .06.
		"step-down keeps order of input": {
			p:    []float64{0.01, 0.04, 0.03, 0.005},
			want: []float64{0.03, 0.06, 0.06, 0.02},
		},
		// Bonferroni (p·3 ≤ .05) rejects only the first; Holm all three.
		"more powerful than Bonferroni": {
			p:    []float64{0.01, 0.02, 0.025},
			want: []float64{0.03, 0.04, 0.04},
		},
		"capped at 1": {
			p:    []float64{0.5, 0.9},
			want: []float64{1, 1},
		},
		"ties": {
			p:    []float64{0.02, 0.02},
			want: []float64{0.04, 0.04},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := HolmAdjust(tc.p)
			if len(got) != len(tc.want) {
				t.Fatalf("HolmAdjust(%v) = %v, want %v", tc.p, got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Fatalf("HolmAdjust(%v) = %v, want %v", tc.p, got, tc.want)
				}
			}
		})
	}
}

func TestRunsNeeded(t *testing.T) {
	cases := map[string]struct {
		alpha float64
		want  int
	}{
		"alpha 0.05":         {0.05, 4},     // 2/C(8,4) = 0.029
		"alpha 0.05 over 8":  {0.05 / 8, 6}, // 2/C(10,5) = 0.0079 > 0.00625
		"alpha 0.05 over 28": {0.05 / 28, 7},
		"alpha 0.01":         {0.01, 5}, // 2/C(10,5) = 0.0079
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := RunsNeeded(tc.alpha); got != tc.want {
				t.Errorf("RunsNeeded(%g) = %d, want %d (MinP(n,n) = %g)", tc.alpha, got, tc.want, MinP(got, got))
			}
		})
	}
	if got, want := MinP(4, 4), 2.0/70; math.Abs(got-want) > 1e-12 {
		t.Errorf("MinP(4, 4) = %g, want %g", got, want)
	}
}
