package sequential

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

var (
	seqTrials  = flag.Int("seq.trials", 200, "simulated levels per row of TestSequentialSLAPower")
	seqCeiling = flag.Int("seq.ceiling", 400, "the levels' count: the fixed design's n and the sequential one's ceiling")
	seqSigma   = flag.Float64("seq.sigma", 0.2, "the lognormal spread of TTFT")
	seqHorizon = flag.Int("seq.horizon", 0, "the requests the confidence sequences are tightest at (0: objective.Horizon's)")
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
	if *seqHorizon > 0 {
		saved := objective.Sequence
		objective.Sequence = inference.NewSequence(objective.Alpha, *seqHorizon)
		defer func() { objective.Sequence = saved }()
	}
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
		var sq float64 // Σ n², for the mean's standard error
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
			sq += float64(n * n)
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
		// Issue 31, at its measurement (σ 0.2, a count of 400): at most
		// half the fixed check's requests where the truth is 10% inside
		// the objective; half the objective, wherever measured. With
		// fewer levels than the docs' 200 (-short), but for chance: three
		// standard errors of the mean.
		limit := float64(ceiling) / 2
		if trials < 200 {
			limit += 3 * math.Sqrt((sq/float64(trials)-mean*mean)/float64(trials))
		}
		docs := *seqSigma == 0.2 && ceiling == 400
		if (row.p95 == 0.5 || row.p95 == 0.9 && docs) && mean > limit {
			t.Errorf("%s: the sequential check sent %.0f requests on average, more than half of %d", row.name, mean, ceiling)
		}
	}
}

func ms(x float64) *sample.Sample {
	d := time.Duration(x * float64(time.Millisecond))
	return &sample.Sample{Start: time.Now(), TTFT: d, TTFA: d, Total: d, OutputTokens: 1, Finish: "stop"}
}

// TestStoppedIntervalsCover: levels that stopped once decided report, as
// their verdict does (objective.Judge of samples carrying their ceiling),
// a p95 interval that covers the truth's at the stated rate: the stopping
// time is chosen by the data, which a fixed-n interval would not survive.
func TestStoppedIntervalsCover(t *testing.T) {
	const runs, ceiling, threshold, floor = 200, 400, 600.0, 40
	o := objective.MustParse(map[string]float64{"ttft_p95_ms": threshold})
	rng := rand.New(rand.NewPCG(21, 22))
	z95 := 1.6448536269514722
	miss, stopped := 0, 0
	for i := range runs {
		truth := threshold * []float64{0.5, 0.8, 1.2}[i%3]
		median := truth / math.Exp(0.3*z95)
		ty := NewTally(o, floor, true)
		var samples []sample.Sample
		for len(samples) < ceiling && !ty.Decided() {
			s := ms(median * math.Exp(0.3*rng.NormFloat64()))
			s.Run, s.Ceiling, s.Seq = "r", ceiling, len(samples)
			ty.Add(s)
			samples = append(samples, *s)
		}
		if len(samples) < ceiling {
			stopped++
		}
		v := objective.Judge(samples, o)
		d := v.Decisions[0]
		if !d.Interval.Sequential {
			t.Fatalf("run %d: the verdict's interval is not the sequence's", i)
		}
		if truth < d.Interval.Lo || truth > d.Interval.Hi {
			miss++
		}
	}
	t.Logf("%d of %d levels stopped early; the p95 interval missed the truth in %d", stopped, runs, miss)
	// The interval is the sequence's, both its sides at once: it misses
	// with at most 1 − its stated confidence.
	a := 1 - objective.Sequence.Conf()
	if limit := int(math.Ceil(runs * (a + 3*math.Sqrt(a*(1-a)/runs)))); miss > limit {
		t.Errorf("missed the truth in %d of %d runs, want ≤ %d", miss, runs, limit)
	}
	if stopped < runs/2 {
		t.Errorf("only %d of %d levels stopped early: the test says little", stopped, runs)
	}
}
