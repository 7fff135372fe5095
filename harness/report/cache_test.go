package report

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
)

// TestCachedVerdict: a latency verdict judged mostly on cache hits under
// natural says so beside the verdict and under the table; under bust, or
// with no latency objective, or mostly misses, it does not.
func TestCachedVerdict(t *testing.T) {
	hit, miss := 40, 0
	var trace func([]sample.Sample)
	run := func(policy sample.CachePolicy, hits int, o objective.Objectives) string {
		ss := make([]sample.Sample, 10)
		for i := range ss {
			c := &miss
			if i < hits {
				c = &hit
			}
			ss[i] = sample.Sample{Scenario: "chat", Endpoint: "x", Level: "concurrency=1", Cache: policy, PromptTokens: 100, CachedTokens: c,
				TTFT: time.Millisecond, Total: 2 * time.Millisecond, Start: time.Now()}
		}
		if trace != nil {
			trace(ss)
		}
		var b bytes.Buffer
		Verdicts(&b, []objective.Verdict{objective.Judge(ss, o)})
		return b.String()
	}
	latency := objective.MustParse(map[string]float64{"ttft_p95_ms": 600})
	traced := func(ss []sample.Sample) {
		for i := range ss {
			ss[i].Asked = &sample.Asked{PromptTokens: 100, OutputTokens: 3}
		}
	}
	trace = traced
	out := run(sample.CacheNatural, 8, latency)
	assert.Contains(t, out, "the trace's rows share prefixes (their hash_ids), as production's did", "a trace's shared prefixes are by design")
	assert.NotContains(t, out, "the fixture's cases repeat")
	trace = nil
	out = run(sample.CacheNatural, 8, latency)
	assert.Contains(t, out, "ok, 80% cached")
	assert.Contains(t, out, "cache (chat endpoint=x concurrency=1): 80% of the requests (n=10) were served partly from the server's prefix cache under cache: natural")
	assert.Contains(t, run("", 8, latency), "ok, 80% cached", "a sample naming no policy was sent as the fixture asks")
	for name, out := range map[string]string{
		"bust":          run(sample.CacheBust, 8, latency),
		"no latency":    run(sample.CacheNatural, 8, objective.MustParse(map[string]float64{"error_rate_max": 0.1})),
		"mostly misses": run(sample.CacheNatural, 5, latency),
	} {
		assert.NotContains(t, out, "% cached", name)
		assert.NotContains(t, out, "cache (chat", name)
	}
}

// TestWorkloadColumns: a level with a prefix cache split into hits and
// misses shows its ttft hit and miss and the speedup in the table, as
// the cache_speedup_min objective judges them (issue 32, item 2).
func TestWorkloadColumns(t *testing.T) {
	hit, miss := 40, 0
	ss := make([]sample.Sample, 10)
	for i := range ss {
		c, ttft := &miss, 30*time.Millisecond
		if i%2 == 0 {
			c, ttft = &hit, 10*time.Millisecond
		}
		ss[i] = sample.Sample{Scenario: "chat", Endpoint: "x", Level: "concurrency=1", Cache: sample.CacheWarm, PromptTokens: 100, CachedTokens: c,
			TTFT: ttft, Total: ttft + time.Millisecond, Start: time.Now()}
	}
	var b bytes.Buffer
	Verdicts(&b, []objective.Verdict{objective.Judge(ss, objective.MustParse(map[string]float64{"cache_speedup_min": 2}))})
	assert.Regexp(t, `ttft hit p50 +ttft miss p50 +speedup +verdict`, b.String())
	assert.Regexp(t, `10\.0 ms +30\.0 ms +3\.0 +ok`, b.String())
}

// TestAgentRow: an agent level's n is its loops, not its steps, and its
// loop latency and most steps are columns (issue 32, item 1).
func TestAgentRow(t *testing.T) {
	base, ms := time.Now(), time.Millisecond
	var ss []sample.Sample
	for loop := range 4 {
		at := base.Add(time.Duration(loop) * time.Second)
		for k := 1; k <= 3; k++ {
			s := sample.Sample{Scenario: "agent", Endpoint: "x", Level: "concurrency=1", Session: fmt.Sprint("l", loop), Step: k,
				Start: at.Add(time.Duration(k-1) * 50 * ms), TTFT: 10 * ms, Total: 40 * ms, Finish: "stop"}
			if k < 3 {
				s.Finish, s.TTFTool, s.ToolDone = "tool_calls", 10*ms, 40*ms
				s.ToolCalls = []sample.ToolCall{{Name: "f", Arguments: "{}"}}
			}
			ss = append(ss, s)
		}
	}
	var b bytes.Buffer
	Verdicts(&b, []objective.Verdict{objective.Judge(ss, nil)})
	assert.Regexp(t, `agent total p95 +steps max +verdict`, b.String())
	assert.Regexp(t, `agent +x +1 +4 loops .* 140 ms +3\.0 +ok`, b.String())
}
