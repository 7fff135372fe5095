package inference

import (
	"math"
	"testing"
)

// MannWhitney against the exact distribution of U: with n values a side
// and no ties, every ordering of the pooled values is equally likely, so
// a complete separation has two-sided p 2/C(2n, n).
func TestMannWhitney(t *testing.T) {
	cases := map[string]struct {
		a, b             []float64
		medA, medB, want float64
	}{
		"separated, 4 a side": {a: []float64{1, 2, 3, 4}, b: []float64{5, 6, 7, 8}, medA: 2.5, medB: 6.5, want: 2.0 / 70},
		"separated, 5 a side": {a: []float64{10, 11, 12, 13, 14}, b: []float64{1, 2, 3, 4, 5}, medA: 12, medB: 3, want: 2.0 / 252},
		// U = 8 of 16: the middle of its distribution.
		"interleaved": {a: []float64{1, 4, 5, 8}, b: []float64{2, 3, 6, 7}, medA: 4.5, medB: 4.5, want: 1},
		"one a side":  {a: []float64{1}, b: []float64{2}, medA: 1, medB: 2, want: 1},
		"identical":   {a: []float64{3, 3, 3}, b: []float64{3, 3, 3}, medA: 3, medB: 3, want: 1},
		// Ties, sides of different sizes: go-moremath's exact test gave 0
		// for both. The number of 95s drawn into the new side is
		// hypergeometric: one of sixteen falls among its six with
		// probability 6/16 (two-sided: twice that); three of three,
		// C(6,3)/C(16,3) = 20/560.
		"one tie apart, 10 and 6":    {a: []float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100}, b: []float64{100, 100, 95, 100, 100, 100}, medA: 100, medB: 100, want: 0.75},
		"three ties apart, 10 and 6": {a: []float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100}, b: []float64{95, 95, 95, 100, 100, 100}, medA: 100, medB: 97.5, want: 40.0 / 560},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			medA, medB, p := MannWhitney(tc.a, tc.b)
			if medA != tc.medA || medB != tc.medB || math.Abs(p-tc.want) > 1e-9 {
				t.Errorf("MannWhitney(%v, %v) = %v, %v, p=%.6g; want %v, %v, p=%.6g", tc.a, tc.b, medA, medB, p, tc.medA, tc.medB, tc.want)
			}
			if p < MinP(len(tc.a), len(tc.b))-1e-12 {
				t.Errorf("p=%.6g below MinP(%d, %d) = %.6g", p, len(tc.a), len(tc.b), MinP(len(tc.a), len(tc.b)))
			}
		})
	}
	if _, _, p := MannWhitney(nil, []float64{1, 2}); p != 1 {
		t.Errorf("no values on a side: p = %v, want 1", p)
	}
}
