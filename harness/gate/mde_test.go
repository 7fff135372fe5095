package gate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llmsla/llmsla/harness/metric"
)

// The minimal detectable effects the gate prints must agree with the power
// it has: a change 1.5 times the printed MDE is caught at least 80% of the
// time, a change of the MDE divided by 1.5 less than 80%. Checked on chat,
// for a uniform slowdown of TTFT (the shape the latency MDE assumes) and
// for cases that start failing (the shape of the paired quality MDE); once
// with the default tolerances (the MDE a user reads) and once with none,
// where the statistics alone decide (the MDE's Stat).
func TestGateMDE(t *testing.T) {
	trials := max(20, *powerTrials/2)
	rng := rand.New(rand.NewPCG(300, 7))
	w := newWorld(rng)
	base := w.record(rng, synthSide{runs: 10, n: 20, label: "b"})
	cand := w.record(rng, synthSide{runs: 10, n: 20, label: "n"})
	mdes := map[bool]map[string]MDE{}
	zero := map[string]Tolerance{"*": {}}
	for _, tolerant := range []bool{true, false} {
		opts := Options{}
		if !tolerant {
			opts.Tolerance = zero
		}
		rep, err := Gate(base.source("base.txt"), cand.source("new.txt"), opts)
		if err != nil {
			t.Fatal(err)
		}
		mdes[tolerant] = map[string]MDE{}
		for _, s := range rep.Sensitivity {
			if s.Group == "chat/endpoint=sim" {
				for _, m := range s.MDE {
					mdes[tolerant][m.Unit] = m
				}
			}
		}
	}
	for _, tolerant := range []bool{true, false} {
		opts, what := Options{}, "default tolerances"
		if !tolerant {
			opts.Tolerance, what = zero, "tolerances 0"
		}
		for _, unit := range []string{"ttft-p50-ms", "ttft-p95-ms", "accuracy-%"} {
			m := mdes[tolerant][unit]
			if m.Unit == "" || math.IsInf(m.Change, 1) {
				t.Fatalf("%s, %s: no MDE printed (%+v)", what, unit, m)
			}
			for _, f := range []float64{1.5, 1 / 1.5} {
				var change synthChange
				var size string
				if m.Relative {
					change = synthChange{scenario: "chat", scale: 1 + f*m.Change}
					size = "+" + metric.Precise(100*f*m.Change) + "%"
				} else {
					k := int(math.Round(f * float64(m.Cases)))
					if f > 1 {
						k = int(math.Ceil(f * float64(m.Cases)))
					}
					change = synthChange{scenario: "chat", broken: k}
					size = metric.Precise(float64(k)) + " cases"
				}
				hits, _ := measure(t, uint64(310+len(unit))+uint64(100*f), trials, condition{change: change, caught: regressed("chat", unit), opts: opts})
				power := float64(hits) / float64(trials)
				t.Logf("%s, %s: MDE %s; at %s caught %d/%d", what, unit, m, size, hits, trials)
				if f > 1 && power < 0.8 {
					t.Errorf("%s, %s: 1.5 × the MDE (%s) caught %.0f%% of the time, want ≥ 80%%", what, unit, size, 100*power)
				}
				if f < 1 && power >= 0.8 {
					t.Errorf("%s, %s: the MDE / 1.5 (%s) caught %.0f%% of the time, want < 80%%", what, unit, size, 100*power)
				}
			}
		}
	}
}
