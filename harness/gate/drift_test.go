package gate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// runDrift is drift between runs that every benchmark of a run shares (the
// machine's state), each run's independent: lognormal with log-sd sd.
func runDrift(sd float64) func(rng *rand.Rand) func(int) float64 {
	return func(rng *rand.Rand) func(int) float64 {
		u := make([]float64, 10)
		for i := range u {
			u[i] = sd * rng.NormFloat64()
		}
		return func(run int) float64 { return u[run] }
	}
}

// slowDrift is drift that moves slowly over a recording: an AR(1) series of
// run factors with correlation rho between consecutive runs and log-sd sd.
func slowDrift(rho, sd float64) func(rng *rand.Rand) func(int) float64 {
	return func(rng *rand.Rand) func(int) float64 {
		u := make([]float64, 10)
		u[0] = sd * rng.NormFloat64()
		for i := 1; i < len(u); i++ {
			u[i] = rho*u[i-1] + math.Sqrt(1-rho*rho)*sd*rng.NormFloat64()
		}
		return func(run int) float64 { return u[run] }
	}
}

func latencyRegressed(rep *Report) bool {
	for _, f := range rep.Regressions {
		if f.Family == FamilyLatency {
			return true
		}
	}
	return false
}

// Requests of one run share its conditions, so per-request tests that
// took them for independent draws would see drift between runs as a
// change. Unchanged candidates recorded under drift must pass. With the
// tolerances at zero, so that only the statistics stand between noise and
// an alarm, the corrected latency tests alarm about as often as their α
// allows, the uncorrected ones at least twice as often; with the default
// tolerances, latency does not alarm (at most 1% of comparisons, within
// the noise of the trial count).
//
// Two kinds of drift, both shared by every benchmark of a run (the
// machine's state): independent from run to run (σ 8%), and slow, each
// run's factor correlated with the last one's (AR(1), ρ 0.3, σ 5%). Drift
// slower still is, over one recording, a difference between the two
// recordings, which no statistic of them can tell from a change of the
// endpoint; docs/gate.md gives the rates, and llmsla ab is the remedy.
func TestGateDrift(t *testing.T) {
	trials := *powerTrials
	zero := map[string]Tolerance{"*": {}}
	for i, d := range []struct {
		name  string
		drift func(rng *rand.Rand) func(int) float64
	}{
		{"drift between runs (σ 8%)", runDrift(0.08)},
		{"slow drift (AR(1) ρ 0.3, σ 5%)", slowDrift(0.3, 0.05)},
	} {
		t.Run(d.name, func(t *testing.T) {
			hits, examples := measureEach(t, uint64(200+i), trials, synthChange{}, d.drift, []probe{
				{opts: Options{Tolerance: zero}, caught: latencyRegressed},
				{opts: Options{Tolerance: zero}, noDrift: true, caught: latencyRegressed},
				{opts: Options{}, caught: latencyRegressed},
			})
			corrected, raw, alarms, example := hits[0], hits[1], hits[2], examples[2]
			t.Logf("tolerances 0: latency alarms %d/%d corrected, %d/%d uncorrected; default tolerances: %d/%d", corrected, trials, raw, trials, alarms, trials)
			// The latency family's α is 0.05, one-sided.
			if max := withinNoise(0.05, trials); corrected > max {
				t.Errorf("corrected, tolerances 0: %d of %d unchanged comparisons alarmed, want ≤ %d", corrected, trials, max)
			}
			if raw < 2*max(corrected, 1) {
				t.Errorf("uncorrected, tolerances 0: %d alarms against %d corrected: the correction should matter twice over at least", raw, corrected)
			}
			if max := withinNoise(0.01, trials); alarms > max {
				t.Errorf("default tolerances: %d of %d unchanged comparisons alarmed on latency, want ≤ %d; the first:\n%s", alarms, trials, max, example)
			}
		})
	}
}

// withinNoise is the most of n trials a rate may reach and still be
// within three standard deviations of rate: a bound for rates that a
// correct gate attains on average, not one it keeps below, loose enough
// that a change elsewhere moving one trial does not fail it.
func withinNoise(rate float64, n int) int {
	return int(math.Ceil(rate*float64(n) + 3*math.Sqrt(float64(n)*rate*(1-rate))))
}
