package sequential

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
)

func ok(ms float64) *sample.Sample {
	d := time.Duration(ms * float64(time.Millisecond))
	return &sample.Sample{Start: time.Now(), TTFT: d, TTFA: d, Total: d, OutputTokens: 1, Finish: "stop"}
}

func TestTally(t *testing.T) {
	o := objective.MustParse(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.1})
	for name, tc := range map[string]struct {
		o     objective.Objectives
		floor int
		ms    float64
		at    int // decided after this many (0: not within 1000)
	}{
		"far under":             {o, 0, 100, 78},
		"floor first":           {o, 120, 100, 120},
		"over":                  {o, 0, 900, 4}, // none of 4 under 600 ms: P = 0.05^4 that a p95 under it would do that
		"a server figure holds": {objective.MustParse(map[string]float64{"ttft_p95_ms": 600, "ttft_gap_max": 0}), 0, 100, 0},
		"a turn's figure holds": {append(o, objective.Threshold{Fig: o[0].Fig, Value: 600, Turn: 2}), 0, 100, 0},
	} {
		t.Run(name, func(t *testing.T) {
			ty := NewTally(tc.o, tc.floor, false)
			at := 0
			for i := 1; i <= 1000 && at == 0; i++ {
				ty.Add(ok(tc.ms))
				if ty.Decided() {
					at = i
				}
			}
			if tc.at == 0 && at != 0 || tc.at != 0 && (at < tc.at-2 || at > tc.at+2) {
				t.Errorf("decided after %d requests, want %d (0: never)", at, tc.at)
			}
		})
	}
}

// TestObserverCallsDecided: the observer tells a level that may stop, and
// only such a level, once; warm-up and a probe count for nothing.
func TestObserverCallsDecided(t *testing.T) {
	o := objective.MustParse(map[string]float64{"ttft_p95_ms": 600})
	obs := New(func(string, string) objective.Objectives { return o })
	var calls atomic.Int32
	lv := &observe.Level{Scenario: "chat", Endpoint: "e", Decided: func() { calls.Add(1) }}
	fixed := &observe.Level{Scenario: "chat", Endpoint: "e"}
	ctx := context.Background()
	for _, l := range []*observe.Level{lv, fixed} {
		obs.LevelStart(ctx, l)
		w := ok(100)
		w.Warmup = true
		for range 200 {
			obs.Sample(l, w)
		}
		if l == lv && calls.Load() != 0 {
			t.Fatal("decided on warm-up requests")
		}
		for range 200 {
			obs.Sample(l, ok(100))
		}
		obs.LevelEnd(ctx, l, nil)
	}
	if calls.Load() != 1 {
		t.Errorf("Decided called %d times, want once", calls.Load())
	}
}
