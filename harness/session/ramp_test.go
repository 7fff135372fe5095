package session

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
)

// TestRampEndToEnd: a ramp level runs through the session for its own
// count — what its two seconds ask for, whatever samples says — on the
// scenario's arrivals, and the report reads its rates without comparing
// them with one rate asked.
func TestRampEndToEnd(t *testing.T) {
	s, cfg := simSession(t, "ttft=10ms,tpot=1ms,tokens=4,jitter=0.05")
	src, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	conf := config.Scenario{Samples: 5, MaxTokens: 8, Arrival: load.Constant,
		Loads: []load.Pacer{load.Ramp{From: 5, To: 20, Over: 2 * time.Second}}}
	lv := conf.Levels()[0]
	n := conf.Requests(lv)
	require.Equal(t, 25, n, "(5 + 20) / 2 req/s for 2 s")
	samples, err := s.Measure(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: lv, Fixture: src}, n)
	require.NoError(t, err)
	v := objective.Judge(samples, conf.Objectives)
	assert.Equal(t, 25, v.Stats.Attempted)
	var out bytes.Buffer
	report.Verdicts(&out, []objective.Verdict{v})
	assert.Contains(t, out.String(), "open loop (chat endpoint=sim ramp=5to20): sent at ")
	assert.NotContains(t, out.String(), "asked")
}
