package objective

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ttfts returns a level's samples with these first-token times in ms.
func ttfts(ms ...float64) []sample.Sample {
	now := time.Now()
	out := make([]sample.Sample, len(ms))
	for i, x := range ms {
		d := time.Duration(x * float64(time.Millisecond))
		out[i] = sample.Sample{Scenario: "chat", Endpoint: "e", Level: "concurrency=1", Run: "r", Seq: i, Start: now, TTFT: d, TTFA: d, Total: d, OutputTokens: 1, Finish: "stop"}
	}
	return out
}

// TestIntervalsOnVerdicts: a p95 near its threshold reads as undecided,
// with its interval, instead of a bare ok; one far from it as met; a rate
// carries Clopper–Pearson's interval.
func TestIntervalsOnVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	near, far := make([]float64, 100), make([]float64, 100)
	for i := range near {
		z := rng.NormFloat64()
		near[i] = 450 * math.Exp(0.2*z) // p95 ≈ 450·e^0.33 ≈ 625: near 600
		far[i] = 100 * math.Exp(0.2*z)
	}
	o := MustParse(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01})
	for name, tc := range map[string]struct {
		ms   []float64
		want State
	}{"near": {near, Undecided}, "far": {far, Met}} {
		t.Run(name, func(t *testing.T) {
			v := Judge(ttfts(tc.ms...), o)
			require.Len(t, v.Decisions, 2)
			d := v.Decisions[0]
			assert.Equal(t, "ttft_p95_ms", d.Threshold.Key())
			assert.Equal(t, tc.want, d.State, d.String())
			assert.Less(t, d.Interval.Lo, d.Got)
			assert.Greater(t, d.Interval.Hi, d.Got)
			if tc.want == Undecided {
				assert.Contains(t, d.String(), "— undecided at n=100")
				assert.Len(t, v.Undecided(), 2, "0 errors of 100 cannot show a rate under 1%% either")
			} else {
				assert.True(t, strings.HasSuffix(d.String(), ": met (n=100)"), d.String())
			}
			rate := v.Decisions[1]
			assert.Equal(t, 0.0, rate.Interval.Lo)
			assert.InDelta(t, 0.0362, rate.Interval.Hi, 1e-3, "Clopper–Pearson's upper bound for 0 of 100")
		})
	}
}

// TestIntervalUnbounded: a p99 of 40 values has no upper bound at 95%
// (all 40 fall below the p99 with probability 0.99^40 = 0.67; a p95's
// needs 72 values); the interval says so, and the objective is undecided
// however fast.
func TestIntervalUnbounded(t *testing.T) {
	ms := make([]float64, 40)
	for i := range ms {
		ms[i] = float64(100 + i)
	}
	v := Judge(ttfts(ms...), MustParse(map[string]float64{"ttft_p99_ms": 600}))
	require.Len(t, v.Decisions, 1)
	d := v.Decisions[0]
	assert.True(t, math.IsInf(d.Interval.Hi, 1))
	assert.Equal(t, Undecided, d.State)
	assert.Contains(t, d.String(), "[137, ∞)")
}
