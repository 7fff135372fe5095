package harness

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// simSession is a session on one simulated endpoint with spec.
func simSession(t *testing.T, spec string) (*Session, *config.Config) {
	t.Helper()
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": spec}}
	s, err := NewSession(cfg)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s, cfg
}

// TestSoakDriftFails: a soak against a simulator that turns 4× slower
// halfway fails its drift objective, naming the slices it compared.
func TestSoakDriftFails(t *testing.T) {
	s, cfg := simSession(t, "ttft=20ms,tpot=1ms,tokens=4,jitter=0.05,slow_after=2s,slow_factor=4")
	src, err := s.source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	conf := config.Scenario{Duration: 4 * time.Second, Slice: time.Second, MaxTokens: 16, Rates: []float64{30},
		Objectives: objective.MustParse(map[string]float64{"drift_max": 0.5})}
	lv := conf.Levels()[0]
	samples := s.run(context.Background(), "chat", cfg.Endpoints[0], conf, lv, conf.Requests(lv), src, false)
	v := objective.Judge(samples, conf.Objectives)
	st := v.Stats
	require.GreaterOrEqual(t, len(st.Slices), 3, "4 s in 1 s slices: %+v", st.Slices)
	t.Logf("drift %+.0f%% over %d slices", 100*st.Drift(), len(st.Slices))
	assert.InDelta(t, 3.0, st.Drift(), 1.0, "a 4× slower TTFT at the end: drift ≈ +300%")
	var drift *objective.Violation
	for i := range v.Violations {
		if v.Violations[i].Threshold.Name == "drift" {
			drift = &v.Violations[i]
		}
	}
	require.NotNil(t, drift, "the drift objective must fail: %v", v.Violations)
	assert.Contains(t, drift.String(), "in slice 1,")
	assert.Regexp(t, `ms in slices? \d`, drift.String())

	var out bytes.Buffer
	report.Verdicts(&out, []objective.Verdict{v})
	assert.Contains(t, out.String(), "time slices (chat endpoint=sim rate=30), drift +")
	assert.Contains(t, out.String(), "open loop (chat endpoint=sim rate=30): achieved")
}

// TestSoakWithoutDriftPasses guards the other side: the same soak on a
// steady simulator meets drift_max.
func TestSoakWithoutDriftPasses(t *testing.T) {
	s, cfg := simSession(t, "ttft=20ms,tpot=1ms,tokens=4,jitter=0.05")
	src, err := s.source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	conf := config.Scenario{Duration: 3 * time.Second, Slice: time.Second, MaxTokens: 16, Concurrency: []int{2},
		Objectives: objective.MustParse(map[string]float64{"drift_max": 0.5})}
	lv := conf.Levels()[0]
	samples := s.run(context.Background(), "chat", cfg.Endpoints[0], conf, lv, conf.Requests(lv), src, false)
	v := objective.Judge(samples, conf.Objectives)
	assert.True(t, v.OK(), "violations: %v", v.Violations)
	assert.GreaterOrEqual(t, len(v.Stats.Slices), 2)
}

// TestPrefillFit: a prompt-length sweep on a simulator whose prefill costs
// 50 µs per prompt token recovers that cost within 10%.
func TestPrefillFit(t *testing.T) {
	const perToken = 50 * time.Microsecond
	s, cfg := simSession(t, "ttft=10ms,prefill=50us,tpot=1ms,tokens=4,jitter=0.05")
	src, err := s.source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	conf := config.Scenario{Samples: 10, MaxTokens: 8, Concurrency: []int{1}, PromptTokens: []int{128, 1024, 4096}, Seed: 3}
	var vs []objective.Verdict
	for _, lv := range conf.Levels() {
		samples := s.run(context.Background(), "chat", cfg.Endpoints[0], conf, lv, conf.Requests(lv), src, false)
		v := objective.Judge(samples, conf.Objectives)
		want, _ := lv.Label().Float("prompt_tokens")
		assert.InDelta(t, want, v.Stats.PromptTokens.Mean, 0.1*want, "%s: the synthetic prompt's length", lv.Label())
		vs = append(vs, v)
	}
	objective.CheckRuns(vs)
	fit := vs[len(vs)-1].Stats.Prefill
	t.Logf("fit: %.1f ms + %.4f ms/token (± %.4f), n=%d", fit.A, fit.B, fit.BErr, fit.N)
	want := float64(perToken) / float64(time.Millisecond)
	assert.InDelta(t, want, fit.B, 0.1*want, "prefill per token")
	assert.False(t, math.IsNaN(fit.A))

	var out bytes.Buffer
	report.Verdicts(&out, vs)
	assert.Contains(t, out.String(), "prefill (chat endpoint=sim): ttft = ")
	assert.NotContains(t, out.String(), "WARNING", "the prompts have the lengths asked")
	assert.True(t, strings.Contains(out.String(), "prompt_tokens=4096/concurrency=1"))
}

// TestLevelsReadAsLabels: the load levels of a scenario name themselves as
// they appear in subtests, benchmarks, samples and tables.
func TestLevelsReadAsLabels(t *testing.T) {
	conf := config.Scenario{Concurrency: []int{1, 4}, Rates: []float64{2.5}, PromptTokens: []int{128}}
	var got []string
	for _, lv := range conf.Levels() {
		got = append(got, string(lv.Label()))
	}
	assert.Equal(t, []string{"prompt_tokens=128/concurrency=1", "prompt_tokens=128/concurrency=4", "prompt_tokens=128/rate=2.5"}, got)
	_, ok := conf.Levels()[2].Pacer.(load.Open)
	assert.True(t, ok)
}

// TestCapacityOnSimulator: a capacity search by rate against a simulator
// with 4 generation slots and a 50 ms service time finds the 80 req/s its
// model implies (K / S), within the search's resolution.
func TestCapacityOnSimulator(t *testing.T) {
	spec := "slots=4,ttft=50ms,tpot=0s,jitter=0"
	s, cfg := simSession(t, spec)
	simCfg, err := sim.ParseSpec(spec)
	require.NoError(t, err)
	want := simCfg.Capacity(0, 1)
	src, err := s.source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	c := config.DefaultCapacity()
	c.Start, c.Resolution = 16, 0.1
	conf := config.Scenario{Samples: 40, MaxTokens: 16, Arrival: load.Constant, Capacity: &c,
		Objectives: objective.MustParse(map[string]float64{"ttft_p95_ms": 75, "error_rate_max": 0})}
	r, err := s.Capacity(context.Background(), "chat", cfg.Endpoints[0], conf, src)
	require.NoError(t, err)
	t.Log(CapacityLine("chat", "sim", c, r))
	assert.InDelta(t, want, 80.0, 0.5, "the simulator's own model")
	assert.GreaterOrEqual(t, r.Limit, want*(1-c.Resolution-0.05), "limit below what the simulator carries")
	assert.LessOrEqual(t, r.Limit, want*1.05, "limit above what the simulator can carry")
	assert.Contains(t, r.Why, "ttft p95")
}
