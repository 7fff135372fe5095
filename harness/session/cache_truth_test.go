package session

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// cacheRun measures chat's fixture on a simulator with a prefix cache
// under policy, n requests at concurrency 1 after the cold one, and
// returns the samples, the simulator's truth by response id, and what the
// session sent, in order.
func cacheRun(t *testing.T, spec string, policy sample.CachePolicy, prefix, n int) ([]sample.Sample, map[string]sim.Truth, objective.Verdict) {
	t.Helper()
	return cacheRunAPI(t, "", spec, policy, prefix, n)
}

// cacheRunAPI is cacheRun through an endpoint of api ("" for chat's).
func cacheRunAPI(t *testing.T, api stream.API, spec string, policy sample.CachePolicy, prefix, n int) ([]sample.Sample, map[string]sim.Truth, objective.Verdict) {
	t.Helper()
	s, cfg := apiSession(t, api, spec)
	src, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl", System: "You are a helpful assistant. Answer with the label only."})
	require.NoError(t, err)
	conf := cfg.Scenario("chat", "sim")
	conf.Warmup, conf.MaxTokens, conf.Cache, conf.PrefixTokens = 0, 4, policy, prefix
	conf.Objectives = objective.MustParse(map[string]float64{"error_rate_max": 0})
	samples, err := s.Measure(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(1)}, Fixture: src}, n)
	require.NoError(t, err)
	truth := map[string]sim.Truth{}
	for _, tr := range s.Sim("sim").Truth() {
		truth[tr.ID] = tr
	}
	for _, smp := range samples {
		require.True(t, smp.OK(), "%s: %s", smp.ErrKind, smp.Err)
		require.Equal(t, policy, smp.Cache, "every sample says the policy it was sent under")
	}
	return samples, truth, objective.Judge(samples, conf.Objectives)
}

// truthTTFT is the simulator's time to first token of a request.
func truthTTFT(tr sim.Truth) float64 { return stats.Ms(tr.FirstToken.Sub(tr.Received)) }

// TestCacheNaturalEqualsTruth: under natural the fixture walk repeats its
// cases; the cached tokens of every request equal the simulator's truth,
// and equal what a prefix cache must give — the longest run of leading
// 16-word blocks an earlier prompt of the session had, never the whole
// prompt — computed here from the prompts alone; hit % and the ttft split
// are the truth's split.
func TestCacheNaturalEqualsTruth(t *testing.T) {
	samples, truth, v := cacheRun(t, "ttft=2ms,prefill=50us,tpot=0s,tokens=2,jitter=0,cache=100000", sample.CacheNatural, 0, 60)
	fix := fixtureOf(t)
	byCase := map[string]load.Prompt{}
	for j := range fix.Len() {
		byCase[fix.Prompt(j).Case] = fix.Prompt(j)
	}
	seen := map[string]bool{}
	hits, known := 0, 0
	var hitTTFT, missTTFT []float64
	for i, smp := range samples {
		tr, ok := truth[smp.ID]
		require.True(t, ok, "request %d has no truth", i)
		require.NotNil(t, smp.CachedTokens, "request %d: the simulator reports cached tokens: known, not nil", i)
		assert.Equal(t, tr.CachedTokens, *smp.CachedTokens, "request %d: cached_tokens is the truth's", i)
		words := promptWordsOf(byCase[smp.Case])
		require.Equal(t, tr.PromptTokens, len(words), "request %d: the model's prompt is the simulator's", i)
		assert.Equal(t, predictCached(words, seen), *smp.CachedTokens, "request %d (case %s): cached_tokens is what a prefix cache gives", i, smp.Case)
		if !smp.Measured() {
			continue
		}
		known++
		if tr.CachedTokens > 0 {
			hits++
			hitTTFT = append(hitTTFT, truthTTFT(tr))
		} else {
			missTTFT = append(missTTFT, truthTTFT(tr))
		}
	}
	c := v.Stats.Cache
	require.Positive(t, hits, "the walk repeats cases: some hits")
	assert.Equal(t, known, c.Known)
	assert.Equal(t, hits, c.Hits)
	assert.InDelta(t, float64(hits)/float64(known), c.HitRate(), 1e-12)
	assert.Equal(t, len(hitTTFT), c.TTFTHit.N, "ttft_hit is over the truth's hits")
	assert.Equal(t, len(missTTFT), c.TTFTMiss.N, "ttft_miss is over the truth's misses")
	if len(missTTFT) > 0 {
		closeMs(t, "ttft_miss p50", stats.Describe(missTTFT).P50, c.TTFTMiss.P50)
	}
	closeMs(t, "ttft_hit p50", stats.Describe(hitTTFT).P50, c.TTFTHit.P50)
}

// TestCacheBustNoHits: under bust the same walk finds nothing cached,
// request by request, on a server whose cache holds every block.
func TestCacheBustNoHits(t *testing.T) {
	samples, truth, v := cacheRun(t, "ttft=2ms,prefill=50us,tpot=0s,tokens=2,jitter=0,cache=100000", sample.CacheBust, 0, 60)
	for i, smp := range samples {
		require.NotNil(t, smp.CachedTokens)
		assert.Zero(t, *smp.CachedTokens, "request %d (case %s): cached under bust", i, smp.Case)
		assert.Zero(t, truth[smp.ID].CachedTokens, "request %d: the simulator found it cached", i)
	}
	c := v.Stats.Cache
	assert.Equal(t, 60, c.Known)
	assert.Zero(t, c.Hits)
	assert.Zero(t, c.HitRate())
	assert.Empty(t, v.Stats.Warnings, "nothing cached, nothing to warn of")
}

// TestCacheWarmSpeedup: under warm half the requests find the shared
// prefix cached; cache_speedup, ttft_miss p50 / ttft_hit p50 as the
// client measured them, is within 10% of the simulator's own.
func TestCacheWarmSpeedup(t *testing.T) {
	samples, truth, v := cacheRun(t, "ttft=5ms,prefill=200us,tpot=0s,tokens=2,jitter=0,cache=100000", sample.CacheWarm, 512, 20)
	var hit, miss []float64
	for _, smp := range samples {
		tr := truth[smp.ID]
		if !smp.Measured() {
			continue
		}
		if tr.CachedTokens > 0 {
			assert.GreaterOrEqual(t, tr.CachedTokens, 512-sim.CacheBlock, "a hit finds the shared prefix")
			hit = append(hit, truthTTFT(tr))
		} else {
			miss = append(miss, truthTTFT(tr))
		}
	}
	c := v.Stats.Cache
	require.Equal(t, 10, len(hit), "half the measured requests behind the warmed prefix")
	require.Equal(t, 10, len(miss))
	assert.Equal(t, 10, c.TTFTHit.N)
	assert.Equal(t, 10, c.TTFTMiss.N)
	want := stats.Describe(miss).P50 / stats.Describe(hit).P50
	got := c.Speedup()
	t.Logf("cache_speedup %.2f, simulator's %.2f (ttft_hit p50 %.1f ms, ttft_miss p50 %.1f ms)", got, want, c.TTFTHit.P50, c.TTFTMiss.P50)
	require.Greater(t, want, 3.0, "the model: a cached 512-token prefix saves most of the prefill")
	assert.InEpsilon(t, want, got, 0.10, "cache_speedup within 10%% of the simulator's")
	f, ok := metricValue(v, "cache_speedup")
	assert.True(t, ok)
	assert.Equal(t, got, f)
}

// TestBustKeepsAccuracy: the marker changes nothing the fixture asks:
// the same requests with wrong answers at a seeded 20% score the same
// accuracy with and without bust.
func TestBustKeepsAccuracy(t *testing.T) {
	acc := map[sample.CachePolicy]float64{}
	for _, p := range []sample.CachePolicy{sample.CacheNatural, sample.CacheBust} {
		_, _, v := cacheRun(t, "ttft=1ms,tpot=0s,tokens=2,jitter=0,wrong=0.2,seed=7", p, 0, 72)
		acc[p] = v.Stats.Quality.AccuracyRate()
		require.Equal(t, 72, v.Stats.Quality.MatchChecked)
	}
	t.Logf("accuracy natural %.3f, bust %.3f", acc[sample.CacheNatural], acc[sample.CacheBust])
	assert.Less(t, acc[sample.CacheNatural], 0.95, "the seeded wrong answers show")
	assert.Equal(t, acc[sample.CacheNatural], acc[sample.CacheBust])
}

// TestBustWarnsOfReuse: a server that still reports cached tokens beyond
// the chat template's prefix under bust makes the table warn.
func TestBustWarnsOfReuse(t *testing.T) {
	n := 300
	ss := make([]sample.Sample, 4)
	for i := range ss {
		ss[i] = sample.Sample{Scenario: "chat", Endpoint: "x", Cache: sample.CacheBust, PromptTokens: 400, CachedTokens: &n,
			TTFT: time.Millisecond, Total: 2 * time.Millisecond, Start: time.Now()}
	}
	v := objective.Judge(ss, nil)
	require.Len(t, v.Stats.Warnings, 1)
	assert.Contains(t, v.Stats.Warnings[0], "cache: bust, yet 4 of 4 requests were served up to 300 prompt tokens from the prefix cache")
	n = stats.BustAllowance
	assert.Empty(t, objective.Judge(ss, nil).Stats.Warnings, "the template's prefix is allowed")
}

// fixtureOf is chat's fixture as cacheRun builds it.
func fixtureOf(t *testing.T) *load.Fixture {
	s, _ := simSession(t, "")
	f, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl", System: "You are a helpful assistant. Answer with the label only."})
	require.NoError(t, err)
	return f
}

// promptWordsOf is a prompt's words with their roles, as a model of a
// tokenizer the simulator also counts by.
func promptWordsOf(p load.Prompt) []string {
	var out []string
	for _, m := range p.Request.Messages {
		for _, w := range strings.Fields(m.Content) {
			out = append(out, m.Role+"\x00"+w)
		}
	}
	return out
}

// predictCached is what a prefix cache of 16-token blocks holding every
// prompt before gives words: the longest run of its leading blocks that
// an earlier prompt had, at most all but its last token's block; then it
// records words' blocks in seen.
func predictCached(words []string, seen map[string]bool) int {
	var keys []string
	for b := 0; (b+1)*sim.CacheBlock <= len(words); b++ {
		keys = append(keys, strings.Join(words[:(b+1)*sim.CacheBlock], " "))
	}
	usable := max(len(words)-1, 0) / sim.CacheBlock
	hit := 0
	for hit < min(usable, len(keys)) && seen[keys[hit]] {
		hit++
	}
	for _, k := range keys {
		seen[k] = true
	}
	return hit * sim.CacheBlock
}

// closeMs: a client's figure is the simulator's within its clock and the
// loopback (the client's t0 is before the handler's entry).
func closeMs(t *testing.T, what string, truth, got float64) {
	t.Helper()
	if d := got - truth; d < -0.5 || d > math.Max(3, 0.2*truth) {
		t.Errorf("%s: %.2f ms measured, simulator %.2f ms", what, got, truth)
	}
}

// metricValue reads a figure of the metric table from a verdict's stats.
func metricValue(v objective.Verdict, name string) (float64, bool) {
	for _, u := range metric.Units() {
		if u.Name == name {
			return u.Bench(v.Stats)
		}
	}
	return math.NaN(), false
}
