package sequential

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

var (
	seqTrials  = flag.Int("seq.trials", 200, "simulated levels per row of TestSequentialSLAPower")
	seqCeiling = flag.Int("seq.ceiling", 400, "the levels' count: the fixed design's n and the sequential one's ceiling")
	seqSigma   = flag.Float64("seq.sigma", 0.2, "the lognormal spread of TTFT")
)

// TestSequentialSLAPower measures the sequential SLA check against the
// fixed one it replaces, request by request: levels whose TTFT is
// lognormal (σ 0.2, the gate's simulations') with a true p95 10% under
// the objective (a fail is false), 10% over (a pass is a miss), and far
// under (half the objective: where the savings are). The fixed level
// sends its count and is judged on its p95; the sequential one stops once
// its tally is decided, after a floor of 40 (a fixture's cases), and is
// judged on the p95 of what it sent. The numbers are docs/gate.md's.
func TestSequentialSLAPower(t *testing.T) {
	trials, ceiling := *seqTrials, *seqCeiling
	if testing.Short() {
		trials = 40
	}
	const threshold, floor = 600.0, 40
	o := objective.MustParse(map[string]float64{"ttft_p95_ms": threshold})
	z95 := 1.6448536269514722
	for _, row := range []struct {
		name string
		p95  float64 // the truth's, × the threshold
	}{{"10% under (fails are false)", 0.9}, {"10% over (passes are misses)", 1.1}, {"half the objective", 0.5}} {
		median := threshold * row.p95 / math.Exp(*seqSigma*z95)
		rng := rand.New(rand.NewPCG(11, uint64(row.p95*100)))
		var fixedFail, seqFail, seqSent int
		for range trials {
			xs := make([]float64, ceiling)
			for i := range xs {
				xs[i] = median * math.Exp(*seqSigma*rng.NormFloat64())
			}
			if stats.Describe(xs).P95 > threshold {
				fixedFail++
			}
			ty := NewTally(o, floor, true)
			n := 0
			for n < ceiling && !ty.Decided() {
				ty.Add(ms(xs[n]))
				n++
			}
			seqSent += n
			if stats.Describe(xs[:n]).P95 > threshold {
				seqFail++
			}
		}
		fixedRate, seqRate := float64(fixedFail)/float64(trials), float64(seqFail)/float64(trials)
		mean := float64(seqSent) / float64(trials)
		t.Logf("%-30s fixed: fail %3d/%d = %5.1f%%, %d requests; sequential: fail %3d/%d = %5.1f%%, mean %.0f requests (%.0f%% of fixed)",
			row.name, fixedFail, trials, 100*fixedRate, ceiling, seqFail, trials, 100*seqRate, mean, 100*mean/float64(ceiling))
		slack := 3 * math.Sqrt(0.25/float64(trials))
		switch {
		case row.p95 < 1 && seqRate > fixedRate+slack:
			t.Errorf("%s: the sequential check fails falsely %.1f%% of the time, the fixed one %.1f%%", row.name, 100*seqRate, 100*fixedRate)
		case row.p95 > 1 && seqRate < fixedRate-slack:
			t.Errorf("%s: the sequential check catches %.1f%%, the fixed one %.1f%%", row.name, 100*seqRate, 100*fixedRate)
		}
		if row.p95 == 0.5 && mean > float64(ceiling)/2 {
			t.Errorf("%s: the sequential check sent %.0f requests on average, more than half of %d", row.name, mean, ceiling)
		}
	}
}

func ms(x float64) *sample.Sample {
	d := time.Duration(x * float64(time.Millisecond))
	return &sample.Sample{Start: time.Now(), TTFT: d, TTFA: d, Total: d, OutputTokens: 1, Finish: "stop"}
}
