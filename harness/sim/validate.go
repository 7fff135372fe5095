package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Bounds of the metrics faults, so that a spec cannot make a scrape
// unbounded.
const (
	maxMetricsSeries  = 1_000_000
	maxMetricsForeign = 100
)

// validateAgents reports the first tool, cache, metrics or usage setting that
// cannot be simulated, naming its spec key and what is allowed.
func (c Config) validateAgents() error {
	if c.ToolFraming != "" && !slices.Contains(ToolFramings, c.ToolFraming) {
		return fmt.Errorf("tools=%q: unknown framing (allowed: %s)", c.ToolFraming, strings.Join(ToolFramings, ", "))
	}
	for key, p := range map[string]float64{"tool_wrong": c.ToolWrongRate, "tool_badjson": c.ToolBadJSONRate, "metrics_hang": c.MetricsHang} {
		if !isProb(p) {
			return fmt.Errorf("%s=%v: a probability, in [0,1]", key, p)
		}
	}
	if c.CacheBlocks < 0 || c.CacheBlocks > maxCacheBlocks {
		return fmt.Errorf("cache=%d: blocks of %d tokens, from 0 (no prefix cache) to %d", c.CacheBlocks, CacheBlock, maxCacheBlocks)
	}
	if f := c.MetricsLie; f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("metrics_lie=%v: a finite factor >= 0 (0 or 1: the truth)", f)
	}
	if f := c.MetricsForeign; !(f >= 0 && f <= maxMetricsForeign) {
		return fmt.Errorf("metrics_foreign=%v: extra requests per real one, from 0 to %d", f, maxMetricsForeign)
	}
	if c.MetricsVanish < 0 {
		return fmt.Errorf("metrics_vanish=%d: the scrapes before the family goes, >= 1 (0: never)", c.MetricsVanish)
	}
	if f := c.MetricsVanishFamily; f != "" && (c.MetricsVanish == 0 || !slices.Contains(MetricFamilies, f)) {
		return fmt.Errorf("metrics_vanish=%d@%s: needs a count >= 1 and one of the families %s",
			c.MetricsVanish, f, strings.Join(MetricFamilies, ", "))
	}
	if !isProb(c.UsageOffRate) || (c.UsageOffRate > 0) != (c.UsageOffTokens != 0) {
		return fmt.Errorf("usage_off=%d:%v: tokens not 0 and a probability in (0,1]", c.UsageOffTokens, c.UsageOffRate)
	}
	if c.MetricsSeries < 0 || c.MetricsSeries > maxMetricsSeries {
		return fmt.Errorf("metrics_series=%d: from 0 to %d", c.MetricsSeries, maxMetricsSeries)
	}
	return nil
}
