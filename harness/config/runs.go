package config

import (
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
)

// Where is the file, line and key of the capacity: block the search came
// from, or "the capacity flags" when they set it.
func (c Capacity) Where() string {
	if c.where == "" {
		return "the capacity flags"
	}
	return c.where
}

// SearchCapacity returns the capacity search of scenario name on endpoint:
// its capacity: block (or the defaults), with each "key=value" of settings
// on top (llmsla capacity's flags: by, start, max, resolution, repeats).
// Settings a search cannot use are an error naming the key.
func (c *Config) SearchCapacity(name, endpoint string, settings []string) (Capacity, error) {
	cs := DefaultCapacity()
	if sc := c.Scenario(name, endpoint); sc.Capacity != nil {
		cs = *sc.Capacity
	}
	cs.where = ""
	for _, kv := range settings {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return cs, fmt.Errorf("%q: want key=value with keys %s", kv, strings.Join(capacityKeys, ", "))
		}
		if err := cs.set(k, v); err != nil {
			return cs, fmt.Errorf("-%s: %w", k, err)
		}
	}
	return cs, cs.check()
}

// Unit is the benchmark unit of a search's limit: max-rps, or
// max-concurrency (max-speedup) for a search by concurrency (speedup).
func (c Capacity) Unit() string {
	if c.By == "concurrency" || c.By == "speedup" {
		return metric.ByName("max_" + c.By).BenchUnit
	}
	return metric.ByName("max_rps").BenchUnit
}
