package recording

import (
	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/sample"
)

// Config gathers the configuration lines of a recorded run ("key:
// value", benchfmt's file configuration) from its results as they are
// read: what llmsla bench recorded of the run's provenance at the top of
// the file, and the lines go test and the test binary print. A key whose
// value changes within the file keeps every value, marked as a change.
type Config struct {
	vals map[string][]string
}

// Add gathers res's file configuration (it is not retained).
func (c *Config) Add(res *benchfmt.Result) {
	if c.vals == nil {
		c.vals = map[string][]string{}
	}
	for _, cfg := range res.Config {
		if !cfg.File || len(cfg.Key) == 0 || cfg.Key[0] == '.' {
			continue
		}
		vs := c.vals[cfg.Key]
		if len(vs) == 0 || vs[len(vs)-1] != string(cfg.Value) {
			c.vals[cfg.Key] = append(vs, string(cfg.Value))
		}
	}
}

// Provenance is the configuration gathered, as a provenance (bounded as
// sample.Provenance.Set bounds a value).
func (c *Config) Provenance() sample.Provenance {
	p := sample.Provenance{}
	for k, vs := range c.vals {
		v := vs[0]
		if len(vs) > 1 {
			v = vs[len(vs)-1]
			for i := len(vs) - 2; i >= 0; i-- {
				v = vs[i] + " → " + v
			}
			v += " (changed within the file)"
		}
		p.Set(v, k)
	}
	return p
}
