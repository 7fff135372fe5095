package session

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/lateness"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sim"
)

// TestSweepOnSimulator: a rate sweep against a simulator with 4 generation
// slots and a 50 ms service time measures one stream and saturation at the
// rates the simulator's truth says it served in those steps (its requests'
// own instants), steps the rates between, and ends with the highest that
// held its objective. The saturation step is checked to have saturated:
// its requests waited for a slot (the client kept more than 4 in flight).
// Against 4/S (S the mean service) it is held only on a machine whose
// timers kept time: a busy one hands a freed slot over late, which the
// simulator's own rate shows and 4/S does not (31% under once, beside two
// CPU-bound processes).
func TestSweepOnSimulator(t *testing.T) {
	s, cfg := simSession(t, "slots=4,ttft=50ms,tpot=0s,jitter=0")
	src, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	const samples = 60
	w := config.Sweep{Steps: 4, Saturate: 16}
	conf := config.Scenario{Samples: samples, MaxTokens: 8, Arrival: load.Constant, Sweep: &w,
		Objectives: objective.MustParse(map[string]float64{"ttft_p95_ms": 100, "error_rate_max": 0})}
	var r capacity.SweepResult
	late := lateness.During(func() {
		r, err = s.Sweep(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Fixture: src})
	})
	require.NoError(t, err)
	t.Log(report.SweepLine("chat", "sim", r))
	require.Len(t, r.Steps, 6, "one stream, saturation, 4 rates")
	truth := s.Sim("sim").Truth()
	// Each step is its samples and their warm-up, sent together (the
	// client's window is theirs: the warm-up's requests share the slots).
	per := len(truth) / 6
	require.Equal(t, 6*per, len(truth), "6 steps of %d requests and their warm-up", samples)
	require.GreaterOrEqual(t, per, samples)
	step := func(k int) []sim.Truth { return truth[k*per : (k+1)*per] }
	served := func(step []sim.Truth) (rate float64, service time.Duration, queued int) {
		from, to := step[0].Received, step[0].Last
		var sum time.Duration
		for _, tr := range step {
			if tr.Received.Before(from) {
				from = tr.Received
			}
			if tr.Last.After(to) {
				to = tr.Last
			}
			sum += tr.Last.Sub(tr.Received) - tr.QueueWait
			if tr.QueueWait > 0 {
				queued++
			}
		}
		return float64(len(step)) / to.Sub(from).Seconds(), sum / time.Duration(len(step)), queued
	}
	one, oneService, _ := served(step(0))
	sat, satService, queued := served(step(1))
	t.Logf("truth: one stream %.1f req/s (service %v), saturation %.1f req/s (service %v, 4/S %.1f), %d of %d queued; %s",
		one, oneService, sat, satService, 4/satService.Seconds(), queued, per, late)
	// The client's wall starts at its first send and ends at its last
	// read: each end may be late by the machine's worst wake.
	slack := func(rate float64) float64 { return 0.05 + 2*late.Max.Seconds()*rate/float64(per) }
	assert.InEpsilon(t, one, r.Stream, slack(one), "one stream: the rate the simulator served")
	assert.InEpsilon(t, sat, r.Saturation, slack(sat), "saturation: the rate the simulator served")
	assert.GreaterOrEqual(t, queued, per-2*4, "saturation: every request but the first slots' waited for one")
	if !late.Busy() {
		assert.InEpsilon(t, 4/satService.Seconds(), r.Saturation, 0.15, "saturation: 4 slots kept busy")
	}
	for _, st := range r.Steps[2:] {
		assert.Contains(t, st.Label, "search=sweep/rate=")
	}
	assert.LessOrEqual(t, r.Limit, r.Saturation*1.05, "held above what the simulator can carry")
	assert.GreaterOrEqual(t, r.Limit, r.Stream, "the one-stream rate holds its objective")
	assert.Contains(t, report.SweepLine("chat", "sim", r), "every objective held up to")
}
