package objective

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
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

// TestUnmeasuredFiguresFail: an objective on a figure a run does not have
// — a lag in closed loop, accuracy without a check, drift without slices,
// a latency with no successful request — is not met, never read as 0.
func TestUnmeasuredFiguresFail(t *testing.T) {
	now := time.Now()
	closed := []sample.Sample{
		{Scenario: "chat", Endpoint: "e", Level: "concurrency=1", Run: "r", Seq: 1, Start: now, TTFT: time.Millisecond, Total: time.Millisecond, OutputTokens: 1, Finish: "stop"},
		{Scenario: "chat", Endpoint: "e", Level: "concurrency=1", Run: "r", Seq: 2, Start: now, TTFT: time.Millisecond, Total: time.Millisecond, OutputTokens: 1, Finish: "stop"},
	}
	failed := []sample.Sample{{Scenario: "chat", Endpoint: "e", Level: "concurrency=1", Run: "r", Seq: 1, Start: now,
		ErrKind: sample.KindServerError, Finish: "server_error"}}
	for name, tc := range map[string]struct {
		samples []sample.Sample
		key     string
	}{
		"lag in closed loop":        {closed, "lag_p95_ms"},
		"accuracy never checked":    {closed, "accuracy_min"},
		"drift of a short run":      {closed, "drift_max"},
		"schema never checked":      {closed, "schema_valid_min"},
		"ttft with no success":      {failed, "ttft_p95_ms"},
		"coverage without fixture":  {closed, "coverage_min"},
		"prefill fit without sweep": {closed, "prefill_cost_max"},
	} {
		t.Run(name, func(t *testing.T) {
			// The loosest bound: only "not measured" can fail it.
			bound := 1e9
			if strings.HasSuffix(tc.key, "_min") {
				bound = 0
			}
			o, err := ParseMap(map[string]float64{tc.key: bound})
			require.NoError(t, err)
			vs := Evaluate(tc.samples, func(string, string) Objectives { return o })
			require.Len(t, vs, 1)
			require.NotEmpty(t, vs[0].Violations, "%s passed on a figure the run does not have", tc.key)
			assert.Contains(t, vs[0].Violations[0].String(), "not measured")
			if m := vs[0].Violations[0].Threshold.Metric; m.Needs != "" {
				assert.Contains(t, vs[0].Violations[0].String(), "it needs "+m.Needs, "says what the figure needs")
			}
		})
	}
	// A soak too short for two slices names the key that would fix it.
	o := MustParse(map[string]float64{"drift_max": 0.5})
	vs := Evaluate(closed, func(string, string) Objectives { return o })
	assert.Contains(t, vs[0].Violations[0].String(), "slice: sets their length")
}

// TestLenientJSONFailsEverywhere: an answer whose JSON parses only inside
// a fence (a lenient pass) fails json valid %, and goodput and the failing
// cases say the same, so a verdict that fails on JSON names its cases.
func TestLenientJSONFailsEverywhere(t *testing.T) {
	now := time.Now()
	s := sample.Sample{Scenario: "extract", Endpoint: "e", Level: "concurrency=1", Run: "r", Seq: 1, Case: "inv-1",
		Start: now, TTFT: time.Millisecond, Total: time.Millisecond, OutputTokens: 1, Finish: "stop",
		Quality: &sample.Quality{Case: "inv-1", JSONChecked: true, JSONValid: true, JSONLenient: true,
			Detail: "json: valid only once a fence was stripped"}}
	vs := Evaluate([]sample.Sample{s}, func(string, string) Objectives { return MustParse(map[string]float64{"json_valid_min": 0.99}) })
	require.Len(t, vs, 1)
	st := vs[0].Stats
	assert.False(t, vs[0].OK(), "json valid is strict")
	assert.Equal(t, 0, st.Good, "a lenient pass counted as a good request")
	if worst := st.WorstCases(5); assert.Len(t, worst, 1, "the failing case is not named") {
		assert.Equal(t, "inv-1", worst[0].ID)
	}
}

// TestWholeRunDetails: a whole-run violation says what lies behind its own
// figure — coverage the cases asked, a prefill cost nothing about cases
// (it once read "0 of 0 cases asked").
func TestWholeRunDetails(t *testing.T) {
	now := time.Now()
	var samples []sample.Sample
	for i, pt := range []int{128, 1024} {
		for j := range 3 {
			ttft := time.Duration(10+pt/10+j) * time.Millisecond
			samples = append(samples, sample.Sample{Scenario: "sweep", Endpoint: "e",
				Level: sample.NewLevel("prompt_tokens", pt).With("concurrency", 1), Run: "r", Seq: 3*i + j,
				Case: []string{"a", "b", "c"}[j], FixtureCases: 4,
				Start: now, TTFT: ttft, TTFA: ttft, Total: ttft, OutputTokens: 1, PromptTokens: pt, Finish: "stop"})
		}
	}
	o := MustParse(map[string]float64{"prefill_cost_max": 1, "coverage_min": 1})
	vs := Evaluate(samples, func(string, string) Objectives { return o })
	require.Len(t, vs, 2)
	var lines []string
	for _, v := range vs[1].Violations {
		lines = append(lines, v.String())
	}
	require.Len(t, lines, 2, "%q", lines)
	assert.Equal(t, "coverage 75% < 100% (n=3; 3 of 4 cases asked)", lines[0])
	assert.Equal(t, "prefill cost 100 > 1 (n=6)", lines[1])
}

// TestViolationDetails: the metric table's Detail column is what a
// violation line adds — the errors by kind, the slices a drift compares.
func TestViolationDetails(t *testing.T) {
	st := &stats.Stats{Attempted: 40, Failed: 2, Errors: map[sample.ErrorKind]int{sample.KindRateLimited: 1, sample.KindTruncated: 1},
		Slices: []stats.Slice{{From: 0, To: 0, N: 20, TTFT: stats.Summary{P95: 100}}, {From: 1, To: 2, N: 20, TTFT: stats.Summary{P95: 300}}}}
	got := MustParse(map[string]float64{"error_rate_max": 0.01, "drift_max": 0.5}).Check(st)
	require.Len(t, got, 2)
	assert.Equal(t, "error rate 5% > 1% (n=40; rate_limited=1 truncated=1)", got[0].String())
	assert.Equal(t, "drift +200% > +50% (n=40; ttft p95 100 ms in slice 1, 300 ms in slices 2–3)", got[1].String())
}

// TestCoverageIgnoresSearchSteps: coverage is judged on the levels the SLA
// judges. A capacity search's steps (sorted after them) neither carry the
// violation, which Failed would not count, nor ask cases for them.
func TestCoverageIgnoresSearchSteps(t *testing.T) {
	now := time.Now()
	mk := func(level sample.Level, c string, seq int) sample.Sample {
		return sample.Sample{Scenario: "chat", Endpoint: "e", Level: level, Run: "r" + string(level), Seq: seq, Case: c, Start: now,
			TTFT: time.Millisecond, Total: time.Millisecond, OutputTokens: 1, Finish: "stop", FixtureCases: 10}
	}
	var samples []sample.Sample
	for i := range 3 {
		samples = append(samples, mk("concurrency=1", fmt.Sprintf("c%d", i), i))
	}
	for i := range 10 {
		samples = append(samples, mk("search=capacity/rate=40", fmt.Sprintf("c%d", i), i))
	}
	vs := Evaluate(samples, func(string, string) Objectives { return MustParse(map[string]float64{"coverage_min": 0.9}) })
	require.Len(t, vs, 2)
	assert.True(t, Failed(vs), "3 of 10 cases asked by the judged level passed coverage_min 0.9")
}

// TestToolMinimumsImplied: a run whose answers were judged as tool calls
// gets tool_valid_min 0.99 and tool_match_min 0.9 without its SLA naming
// them, as JSON and accuracy get theirs: one wrong call in four fails.
func TestToolMinimumsImplied(t *testing.T) {
	now := time.Now()
	var ss []sample.Sample
	for i := range 4 {
		ss = append(ss, sample.Sample{Scenario: "tools", Endpoint: "e", Level: "concurrency=1", Run: "r", Seq: i, Case: "w",
			Start: now, TTFT: time.Millisecond, TTFTool: time.Millisecond, Total: time.Millisecond, OutputTokens: 1, Finish: "tool_calls",
			Quality: &sample.Quality{Case: "w", ToolChecked: true, ToolValid: i != 0, ToolMatchChecked: true, ToolMatched: i != 1}})
	}
	vs := Evaluate(ss, func(string, string) Objectives { return nil })
	require.Len(t, vs, 1)
	var keys []string
	for _, v := range vs[0].Violations {
		keys = append(keys, v.Threshold.Key())
	}
	assert.ElementsMatch(t, []string{"tool_valid_min", "tool_match_min"}, keys)
	assert.Equal(t, 2, vs[0].Stats.Good, "a request with an invalid or unexpected call is not good")
}

// TestAgreementImpliedFromTwenty: a server that timed the requests
// implies ttft_gap_max 0 from 20 TTFT readings on, not on fewer (whose
// p95 is their largest); an SLA's own key is kept at any n.
func TestAgreementImpliedFromTwenty(t *testing.T) {
	for n, want := range map[int]bool{2: false, 19: false, 20: true, 64: true} {
		srv := stats.NewServer()
		srv.TTFT = stats.Buckets{Bounds: []float64{0.01}, Counts: []float64{float64(n)}}
		srv.Sent = n
		ttft := make([]float64, n)
		st := &stats.Stats{Server: srv, TTFT: stats.Describe(ttft)}
		assert.Equal(t, want, Objectives(nil).Implied(st).Has("ttft_gap"), "n=%d", n)
		assert.True(t, MustParse(map[string]float64{"ttft_gap_max": 1}).Implied(st).Has("ttft_gap"), "n=%d: the SLA's own", n)
	}
}
