package report

import (
	"io"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
)

// mostlyCached is the share of a level's requests that were cache hits,
// and whether that level's latency verdict rests on them: under cache:
// natural, most of its requests (over half of those whose cache state is
// known) found part of their prompt in the server's prefix cache, and an
// objective bounds a latency. Users with prompts of their own do not get
// those prefills.
func mostlyCached(v objective.Verdict) (float64, bool) {
	c := v.Stats.Cache
	if c.Policy.Or() != sample.CacheNatural || v.Search() != "" || !(c.HitRate() > 0.5) {
		return 0, false
	}
	for _, th := range v.Objectives {
		if th.Kind == metric.Latency {
			return c.HitRate(), true
		}
	}
	return 0, false
}

// cachedNote is what the verdict word adds for such a level:
// ", 94% cached".
func cachedNote(v objective.Verdict) string {
	if share, ok := mostlyCached(v); ok {
		return ", " + metric.Pct(share) + " cached"
	}
	return ""
}

// writeCached says under the table, for each such level, what its latency
// verdict was judged on.
func writeCached(w io.Writer, vs []objective.Verdict) {
	for _, v := range vs {
		share, ok := mostlyCached(v)
		if ok && v.Stats.Cache.Trace {
			say(w, "cache (%s): %s of the requests (n=%d) were served partly from the server's prefix cache: the trace's rows share prefixes (their hash_ids), as production's did, and are sent without a marker",
				where(v), metric.Pct(share), v.Stats.Cache.Known)
			continue
		}
		if ok {
			say(w, "cache (%s): %s of the requests (n=%d) were served partly from the server's prefix cache under cache: natural (the fixture's cases repeat): "+
				"the latency verdict is on cached prefills, which users with prompts of their own do not get; cache: bust measures every prompt cold",
				where(v), metric.Pct(share), v.Stats.Cache.Known)
		}
	}
}
