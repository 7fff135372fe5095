package sample

import "fmt"

// CachePolicy is how a scenario's prompts meet a server's prefix cache
// (sla.yaml's cache:): as the fixture asks them, each repeat of a case
// free to reuse the last one's prefill (natural); each made unique by a
// marker at its very start, so that no request reuses another's prefix
// (bust); or behind a shared prefix that is warmed first, half the
// requests finding it cached and half not (warm).
type CachePolicy string

const (
	CacheNatural CachePolicy = "natural"
	CacheBust    CachePolicy = "bust"
	CacheWarm    CachePolicy = "warm"
)

// CachePolicies are the policies, in the order docs list them.
var CachePolicies = []CachePolicy{CacheNatural, CacheBust, CacheWarm}

// Or is p, or natural when p is unset (a sample recorded before policies
// had a name asked its prompts as the fixture gave them).
func (p CachePolicy) Or() CachePolicy {
	if p == "" {
		return CacheNatural
	}
	return p
}

// CacheKnown reports whether the server said how many of the request's
// prompt tokens it served from its prefix cache.
func (s *Sample) CacheKnown() bool { return s.CachedTokens != nil }

// CacheHit reports whether the server served some of the prompt from its
// prefix cache; false when it did not say (CacheKnown).
func (s *Sample) CacheHit() bool { return s.CachedTokens != nil && *s.CachedTokens > 0 }

// checkCache: a cache policy is one of CachePolicies.
func (s *Sample) checkCache() error {
	switch s.Cache {
	case "", CacheNatural, CacheBust, CacheWarm:
		return nil
	}
	return fmt.Errorf("cache: %q is not a cache policy (allowed: natural, bust, warm)", s.Cache)
}
