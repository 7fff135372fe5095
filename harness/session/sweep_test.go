package session

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/stats"
)

// TestSweepOnSimulator: a rate sweep against a simulator with 4 generation
// slots and a 50 ms service time measures one stream at 1/S, saturation at
// 4/S (S the service the simulator's truth says its requests got: a busy
// machine makes it longer than the 50 ms asked), steps the rates between,
// and ends with the highest that held its objective.
func TestSweepOnSimulator(t *testing.T) {
	s, cfg := simSession(t, "slots=4,ttft=50ms,tpot=0s,jitter=0")
	src, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	w := config.Sweep{Steps: 4, Saturate: 16}
	conf := config.Scenario{Samples: 60, MaxTokens: 8, Arrival: load.Constant, Sweep: &w,
		Objectives: objective.MustParse(map[string]float64{"ttft_p95_ms": 100, "error_rate_max": 0})}
	r, err := s.Sweep(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Fixture: src})
	require.NoError(t, err)
	t.Log(report.SweepLine("chat", "sim", r))
	var service []float64
	for _, tr := range s.Sim("sim").Truth() {
		service = append(service, stats.Ms(tr.Last.Sub(tr.Received)-tr.QueueWait))
	}
	served := time.Duration(stats.Describe(service).Mean * float64(time.Millisecond))
	one, four := 1/served.Seconds(), 4/served.Seconds()
	t.Logf("truth: mean service %v: one stream %.1f req/s, saturation %.1f", served, one, four)
	assert.InEpsilon(t, one, r.Stream, 0.15, "one stream")
	assert.InEpsilon(t, four, r.Saturation, 0.15, "saturation")
	require.Len(t, r.Steps, 6, "one stream, saturation, 4 rates")
	for _, st := range r.Steps[2:] {
		assert.Contains(t, st.Label, "search=sweep/rate=")
	}
	assert.LessOrEqual(t, r.Limit, four*1.05, "held above what the simulator can carry")
	assert.GreaterOrEqual(t, r.Limit, r.Stream, "the one-stream rate holds its objective")
	assert.Contains(t, report.SweepLine("chat", "sim", r), "every objective held up to")
}
