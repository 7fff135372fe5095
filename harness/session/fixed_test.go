package session

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
)

// TestFixedOutputLength: output_tokens: {fixed: N} asks every answer for
// exactly N tokens with vLLM's parameters (min_tokens, ignore_eos), which
// the simulator honours as vLLM does: every answer is N tokens by the
// server's count and the client's, the level says so in its label, and the
// report does not warn. Without the parameters the answers are the cases'
// own lengths, and the report says the length was not held.
func TestFixedOutputLength(t *testing.T) {
	s, cfg := simSession(t, "ttft=1ms,tpot=0s")
	src, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	conf := config.Scenario{Samples: 12, Concurrency: []int{2}, FixedTokens: 40, MaxTokens: 40}
	lv := conf.Levels()[0]
	assert.Equal(t, "output_tokens=40/concurrency=2", string(lv.Label()))
	samples, err := s.Measure(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: lv, Fixture: src}, 12)
	require.NoError(t, err)
	for _, smp := range samples {
		require.True(t, smp.OK(), smp.Err)
		assert.Equal(t, 40, smp.OutputTokens, "sample %d", smp.Seq)
	}
	for _, tr := range s.Sim("sim").Truth() {
		assert.True(t, tr.IgnoreEOS)
		assert.Equal(t, 40, tr.MinTokens)
		assert.Equal(t, 40, tr.OutputTokens)
	}
	var out bytes.Buffer
	report.Verdicts(&out, []objective.Verdict{objective.Judge(samples, conf.Objectives)})
	assert.NotContains(t, out.String(), "asked for exactly")

	// The same level, the parameters left out (as a server that ignores
	// them would answer): chat's labels are a few tokens long, not 40.
	conf.FixedTokens = 0
	samples, err = s.Measure(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: lv, Fixture: src}, 12)
	require.NoError(t, err)
	out.Reset()
	report.Verdicts(&out, []objective.Verdict{objective.Judge(samples, conf.Objectives)})
	assert.Contains(t, out.String(), "answers asked for exactly 40 tokens came back")
}
