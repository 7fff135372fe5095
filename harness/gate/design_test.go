package gate

import (
	"math"
	"testing"
)

// TestDefaultDesign: the design's looks rise to its ceiling, each look
// adds what its runs say, its measured stopping shares are a
// distribution, and they give the 4.9 runs docs/gate.md states.
func TestDefaultDesign(t *testing.T) {
	d := DefaultDesign
	if len(d.Looks) != len(d.Unchanged) {
		t.Fatalf("%d looks, %d shares", len(d.Looks), len(d.Unchanged))
	}
	sum, runs := 0.0, 0
	for k := range d.Looks {
		sum += d.Unchanged[k]
		runs += d.Added(k)
		if runs != d.Looks[k] {
			t.Errorf("look %d: %d runs added in all, want %d", k+1, runs, d.Looks[k])
		}
	}
	if math.Abs(sum-1) > 1e-9 || d.Fraction(len(d.Looks)-1) != 1 {
		t.Errorf("shares sum to %g, last fraction %g: want 1 and 1", sum, d.Fraction(len(d.Looks)-1))
	}
	if e := d.Expected(func(k int) float64 { return float64(d.Looks[k]) }); math.Abs(e-4.92) > 1e-9 {
		t.Errorf("expected runs %g, want 4.92 (108, 70, 17, 5 of 200 at 3, 6, 10, 14)", e)
	}
	if got, want := d.String(), "looks after 3, 6, 10 and 14 runs"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	for dec, want := range map[string]string{"unchanged": "decided unchanged at look 2 of 4: 6 of 14 runs", "PASS": "gate PASS at look 2 of 4: 6 of 14 runs"} {
		if got := (&Sequential{Look: 2, Looks: 4, Decision: dec}).Saved(d); got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

// TestGoing: an undecided look names what kept the candidate going.
func TestGoing(t *testing.T) {
	fut := &Report{Regressions: []Finding{{Benchmark: "chat/endpoint=sim", Unit: "ttft-p95-ms", Old: 24.23, New: 26.56}},
		Blind: []Finding{{Benchmark: "batch/endpoint=sim", Unit: "ttft-p99-ms"}}}
	want := "look 1 undecided: chat/endpoint=sim ttft-p95-ms 24.23 → 26.56 +9.6% might still regress; batch/endpoint=sim ttft-p99-ms blind"
	if got := going(1, fut); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}
