package session

import (
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
)

// cacheSource is the cell's source under its cache policy
// (load.Cache), and its warm-up: under warm, every run (go test's probe
// included) sends one warm-up request at least, which puts the shared
// prefix in the server's cache before the measured requests, in case the
// last run's was evicted. The plan counts it (WarmingRequests).
func cacheSource(c Cell, src load.Source, warm int) (load.Source, int) {
	policy := c.Settings.Cache.Or()
	if policy == sample.CacheWarm {
		warm = max(warm, 1)
	}
	return load.Cache(src, policy, c.Settings.WarmPrefix()), warm
}

// WarmingRequests is how many warm-up requests the cache policy adds to a
// level that sends runs runs (go test's probes among them), the first of
// which already warms up warm: one a run under warm, beyond what its first
// run sends anyway.
func WarmingRequests(policy sample.CachePolicy, runs, warm int) int {
	if policy != sample.CacheWarm || runs == 0 {
		return 0
	}
	extra := runs - 1
	if warm == 0 {
		extra++
	}
	return extra
}
