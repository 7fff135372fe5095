package config

import (
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/sample"
)

// DefaultPrefixTokens is the shared prefix of cache: warm when
// prefix_tokens is not set: 1,024 tokens, where OpenAI's prompt caching
// starts.
const DefaultPrefixTokens = 1024

// cachePolicy sets the scenario's cache: (at key).
func (p *configParser) cachePolicy(sc *Scenario, key string, v *yaml.Node) {
	sc.Cache = sample.CachePolicy(p.str(v, key))
	if !slices.Contains(sample.CachePolicies, sc.Cache) {
		p.errf(v, key, "%q is not a cache policy (allowed: natural — prompts as the fixture asks them, repeats free to hit the server's prefix cache; bust — a new marker first in every prompt; warm — a shared prefix of prefix_tokens, warmed, then half the requests behind it cached and half not)", v.Value)
	}
}

// checkCache reports cache settings that contradict each other, where set
// says they were written.
func (p *configParser) checkCache(sc Scenario, key string, set map[string]*yaml.Node) {
	if v, ok := set["prefix_tokens"]; ok && sc.Cache != sample.CacheWarm {
		p.errf(v, key+".prefix_tokens", "sizes the shared prefix of cache: warm; set cache: warm too (cache is %s)", sc.Cache.Or())
	}
	if v, ok := set["cache"]; ok && sc.Cache == sample.CacheWarm && len(sc.PromptTokens) > 0 {
		p.errf(v, key+".cache", "warm puts a shared prefix before the fixture's cases, and a prompt_tokens sweep sends synthetic prompts, each new already: drop one of them")
	}
}

// WarmPrefix is the shared prefix's length under cache: warm
// (prefix_tokens, else DefaultPrefixTokens).
func (sc Scenario) WarmPrefix() int {
	if sc.PrefixTokens > 0 {
		return sc.PrefixTokens
	}
	return DefaultPrefixTokens
}
