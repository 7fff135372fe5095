package report

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/sample"
)

func ok(prompt, output int, src sample.TokenSource) sample.Sample {
	return sample.Sample{Scenario: "chat", Endpoint: "e", PromptTokens: prompt, OutputTokens: output, TokenSource: src,
		Finish: "stop", Start: time.Now(), Total: time.Second}
}

// TestCostPerToken checks cost per 1k requests against a hand calculation
// from the samples' token counts (METRICS.md): 1000 × mean over measured
// requests of (prompt × input price + output × output price) / 1e6.
func TestCostPerToken(t *testing.T) {
	price := &Price{InputPerMTok: 0.15, OutputPerMTok: 0.60, Currency: "USD"}
	cold := ok(5000, 5000, sample.TokensUsage)
	cold.Cold = true
	warm := ok(5000, 5000, sample.TokensUsage)
	warm.Warmup = true
	failed := ok(0, 0, "")
	failed.Fail(&sample.RequestError{Kind: sample.KindRateLimited, Status: 429})
	samples := []sample.Sample{
		cold, warm, failed,
		ok(100, 10, sample.TokensUsage),     // 100×0.15 + 10×0.60 = 21 per 1e6
		ok(200, 30, sample.TokensUsage),     // 30 + 18 = 48
		ok(300, 50, sample.TokensEstimated), // 45 + 30 = 75
	}
	c := CostOf(samples, nil, price)
	want := 1000 * (21 + 48 + 75) / 3 / 1e6 // 0.048
	assert.InDelta(t, want, c.PerK, 1e-12)
	assert.Equal(t, 3, c.Priced, "cold and warm-up requests are not measured requests")
	assert.Equal(t, 1, c.Unpriced, "the failed request has no token counts")
	assert.Equal(t, 1, c.Estimated)
	assert.Equal(t, "~0.0480 USD", c.String(), "an estimated output count is marked")
	assert.Contains(t, c.Note(), "output tokens estimated (no usage) for 1 of 3")
	assert.Contains(t, c.Note(), "1 of 4 requests not priced")
}

func TestCostNotMeasured(t *testing.T) {
	usage := []sample.Sample{ok(100, 10, sample.TokensUsage)}
	noPrompt := []sample.Sample{ok(0, 10, sample.TokensEstimated)}
	cases := map[string]struct {
		samples []sample.Sample
		price   *Price
		why     string
	}{
		"no price":             {usage, nil, "no price in the configuration"},
		"no prompt count":      {noPrompt, &Price{InputPerMTok: 1, OutputPerMTok: 1, Currency: "USD"}, "no prompt token counts"},
		"no measured requests": {nil, &Price{Hourly: true, PerHour: 1, Currency: "USD"}, "no measured requests"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := CostOf(tc.samples, nil, tc.price)
			assert.True(t, math.IsNaN(c.PerK), "a cost over nothing is not 0: %v", c.PerK)
			assert.False(t, c.Measured())
			assert.Equal(t, "–", c.String())
			assert.Contains(t, c.Note(), tc.why)
		})
	}
	// Output-only pricing needs no prompt counts.
	c := CostOf(noPrompt, nil, &Price{OutputPerMTok: 2, Currency: "EUR"})
	assert.InDelta(t, 1000*10*2/1e6, c.PerK, 1e-12)
}

// TestCostPerHour: per-hour price × the measured wall time / requests ×
// 1000, the wall time being first t0 to last end of each run.
func TestCostPerHour(t *testing.T) {
	t0 := time.Now()
	var samples []sample.Sample
	for i := range 4 { // one run: 4 requests over t0 … t0+2s
		s := ok(10, 10, sample.TokensUsage)
		s.Run, s.Level = "r1", "concurrency=2"
		s.Start, s.Total = t0.Add(time.Duration(i)*500*time.Millisecond), 500*time.Millisecond
		samples = append(samples, s)
	}
	c := CostOf(samples, nil, &Price{Hourly: true, PerHour: 3.6, Currency: "USD"})
	assert.InDelta(t, 1000*3.6*(2.0/3600)/4, c.PerK, 1e-12) // 0.5 per 1k requests
	assert.True(t, c.Hourly)
	assert.Equal(t, 4, c.Priced)
	assert.Contains(t, c.Note(), "per hour × measured wall time / requests")

	// Tokens do not enter a price per hour: counts estimated from the
	// stream make it no less exact.
	for i := range samples {
		samples[i].TokenSource = sample.TokensEstimated
	}
	c = CostOf(samples, nil, &Price{Hourly: true, PerHour: 3.6, Currency: "USD"})
	assert.Equal(t, "0.500 USD", c.String())
	assert.NotContains(t, c.Note(), "estimated")
}

func TestMoney(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.000123456: "0.000123", 0.0480: "0.0480", 1.2345: "1.23", 12.345: "12.3", 1234.5: "1234", math.NaN(): "–"} {
		assert.Equal(t, want, Money(v), "%v", v)
	}
}
