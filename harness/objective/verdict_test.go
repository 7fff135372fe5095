package objective

import (
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVerdictsFromSamples(t *testing.T) {
	now := time.Now()
	mk := func(c int, ttft time.Duration) sample.Sample {
		return sample.Sample{Scenario: "chat", Endpoint: "e", Level: sample.NewLevel("concurrency", c), Start: now, TTFT: ttft, TTFA: ttft, Total: ttft, OutputTokens: 1, Finish: "stop"}
	}
	cold := mk(1, 900*time.Millisecond)
	cold.Cold = true
	warm := mk(1, time.Hour)
	warm.Warmup = true
	samples := []sample.Sample{cold, warm, mk(1, 100*time.Millisecond), mk(1, 120*time.Millisecond), mk(5, 700*time.Millisecond)}
	chat := MustParse(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01})
	vs := Evaluate(samples, func(scenario, endpoint string) Objectives { return chat })
	require.Len(t, vs, 2)
	assert.True(t, vs[0].OK(), "the cold 900 ms request is not in the warm p95")
	assert.Equal(t, 2, vs[0].Stats.Attempted)
	assert.False(t, vs[1].OK())
	require.NotNil(t, vs[0].Stats.Cold)
	assert.Equal(t, 900*time.Millisecond, vs[0].Stats.Cold.TTFT)
	require.Len(t, vs[1].Violations, 1)
	assert.Equal(t, "ttft p95 700 ms > 600 ms (n=1)", vs[1].Violations[0].String())
}
