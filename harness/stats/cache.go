package stats

import (
	"fmt"
	"math"

	"github.com/llmsla/llmsla/harness/sample"
)

// BustAllowance is how many cached tokens a request under cache: bust may
// report without a warning: the chat template's prefix that every prompt
// shares before the marker (role markers, a model's default system prompt
// — some 20 to 40 tokens — read by vLLM in blocks of 16).
const BustAllowance = 64

// Cache is what a run's server said of its prefix cache (METRICS.md:
// cached_tokens, cache hit %, ttft_hit and ttft_miss, cache_speedup), over
// its successful measured requests.
type Cache struct {
	// Policy is the cache policy the requests were sent under (natural
	// for samples that name none).
	Policy sample.CachePolicy
	// Known counts the requests whose server said how many prompt tokens
	// it served from cache, Hits those of them with some; Prompt and
	// Cached add up their prompt and cached tokens.
	Known, Hits    int
	Prompt, Cached int
	// TTFTHit and TTFTMiss are the ttft of the Known requests with and
	// without cached tokens, in ms.
	TTFTHit, TTFTMiss Summary
	// Beyond counts requests under bust with more than BustAllowance
	// cached tokens, MaxCached the most any request reported.
	Beyond, MaxCached int
	// Trace: the requests replayed a trace's rows, which share the
	// prefixes production's did (their hash_ids): a cached prefill is
	// what the trace asks, not the fixture repeating itself.
	Trace bool
}

// HitRate is Hits / Known; NaN when no request's cache state is known.
func (c Cache) HitRate() float64 {
	if c.Known == 0 {
		return math.NaN()
	}
	return float64(c.Hits) / float64(c.Known)
}

// CachedRate is the cached share of the Known requests' prompt tokens;
// NaN when none is known.
func (c Cache) CachedRate() float64 {
	if c.Known == 0 || c.Prompt == 0 {
		return math.NaN()
	}
	return float64(c.Cached) / float64(c.Prompt)
}

// Split reports whether the run has both hits and misses with a ttft: the
// figures that compare them need both.
func (c Cache) Split() bool { return c.TTFTHit.N > 0 && c.TTFTMiss.N > 0 }

// Speedup is ttft_miss p50 / ttft_hit p50 (cache_speedup); NaN without
// both.
func (c Cache) Speedup() float64 {
	if !c.Split() || c.TTFTHit.P50 <= 0 {
		return math.NaN()
	}
	return c.TTFTMiss.P50 / c.TTFTHit.P50
}

// summarizeCache reads the prefix cache of the successful measured
// samples.
func summarizeCache(samples []sample.Sample) Cache {
	var c Cache
	var hit, miss []float64
	for i := range samples {
		s := &samples[i]
		if !s.Measured() {
			continue
		}
		if c.Policy == "" {
			c.Policy = s.Cache.Or()
		}
		c.Trace = c.Trace || s.Asked != nil
		if !s.OK() || !s.CacheKnown() {
			continue
		}
		n := *s.CachedTokens
		c.Known++
		c.Prompt += s.PromptTokens
		c.Cached += n
		c.MaxCached = max(c.MaxCached, n)
		if s.Cache == sample.CacheBust && n > BustAllowance {
			c.Beyond++
		}
		if n > 0 {
			c.Hits++
		}
		if s.TTFT > 0 && n > 0 {
			hit = append(hit, Ms(s.TTFT))
		} else if s.TTFT > 0 {
			miss = append(miss, Ms(s.TTFT))
		}
	}
	c.TTFTHit, c.TTFTMiss = Describe(hit), Describe(miss)
	return c
}

// warnings are the caveats of the cache figures: a bust level whose
// server still reused prompts.
func (c Cache) warnings() []string {
	if c.Beyond == 0 {
		return nil
	}
	return []string{fmt.Sprintf("cache: bust, yet %d of %d requests were served up to %d prompt tokens from the prefix cache, beyond the %d a chat template's shared prefix accounts for: "+
		"the server reuses more than the template (a proxy caching answers, a cache keyed past the marker?), and these latencies are not cold", c.Beyond, c.Known, c.MaxCached, BustAllowance)}
}
