package report

import (
	"bytes"
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
		var b bytes.Buffer
		Verdicts(&b, []objective.Verdict{objective.Judge(ss, o)})
		return b.String()
	}
	latency := objective.MustParse(map[string]float64{"ttft_p95_ms": 600})
	out := run(sample.CacheNatural, 8, latency)
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
