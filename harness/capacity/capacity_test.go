package capacity

import (
	"context"
	"fmt"
	"testing"
)

// TestSearchFindsTheLimit: against a probe that holds below a known limit,
// the search ends within its resolution of it, bracketing then bisecting.
func TestSearchFindsTheLimit(t *testing.T) {
	cases := map[string]struct {
		o     Options
		limit float64
	}{
		"rate":             {Options{Start: 1, Max: 1000, Resolution: 0.05, Repeats: 1}, 42.1},
		"rate above start": {Options{Start: 8, Max: 1000, Resolution: 0.1, Repeats: 2}, 8.5},
		"concurrency":      {Options{Start: 1, Max: 256, Resolution: 0.1, Repeats: 1, Integer: true}, 13},
		"capped by max":    {Options{Start: 1, Max: 20, Resolution: 0.1, Repeats: 1}, 100},
		"fails at start":   {Options{Start: 4, Max: 20, Resolution: 0.1, Repeats: 1}, 3},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			probe := func(_ context.Context, x float64) (bool, string) {
				return x <= tc.limit, fmt.Sprintf("ttft p95 too high at %g", x)
			}
			r, err := Search(context.Background(), tc.o, probe)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("limit %g, beyond %g (%s), %d steps", r.Limit, r.Beyond, r.Why, len(r.Steps))
			switch {
			case tc.limit >= tc.o.Max:
				if r.Limit != tc.o.Max || r.Beyond != 0 {
					t.Errorf("limit %g beyond %g, want max %g held and nothing beyond", r.Limit, r.Beyond, tc.o.Max)
				}
			case tc.limit < tc.o.Start:
				if r.Limit != 0 || r.Beyond != tc.o.Start || r.Why == "" {
					t.Errorf("limit %g beyond %g, want 0 and the start failing", r.Limit, r.Beyond)
				}
			default:
				if r.Limit > tc.limit || r.Beyond <= tc.limit {
					t.Errorf("limit %g, beyond %g: want limit ≤ %g < beyond", r.Limit, r.Beyond, tc.limit)
				}
				if !tc.o.close(r.Limit, r.Beyond) {
					t.Errorf("limit %g and beyond %g not within resolution %g", r.Limit, r.Beyond, tc.o.Resolution)
				}
				if r.Why == "" {
					t.Error("no failing objective named")
				}
			}
		})
	}
}

// TestSearchNeedsEveryRepeat: a level that fails one repeat of two fails.
func TestSearchNeedsEveryRepeat(t *testing.T) {
	calls := 0
	probe := func(_ context.Context, x float64) (bool, string) {
		calls++
		return x <= 4 || calls%2 == 1, "flaky"
	}
	r, err := Search(context.Background(), Options{Start: 1, Max: 64, Resolution: 0.1, Repeats: 2}, probe)
	if err != nil {
		t.Fatal(err)
	}
	if r.Limit > 4.5 {
		t.Errorf("limit %g: a level that failed a repeat raised the limit", r.Limit)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, o := range []Options{{Start: 0, Max: 1, Resolution: 0.1, Repeats: 1}, {Start: 2, Max: 1, Resolution: 0.1, Repeats: 1},
		{Start: 1, Max: 2, Resolution: 0, Repeats: 1}, {Start: 1, Max: 2, Resolution: 0.1},
		{Start: 1.5, Max: 8, Resolution: 0.1, Repeats: 1, Integer: true}, {Start: 1, Max: 8.5, Resolution: 0.1, Repeats: 1, Integer: true}} {
		if _, err := Search(context.Background(), o, nil); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
