package config

import (
	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/load"
)

// speedable is a level that can be replayed faster (a trace).
type speedable interface {
	WithSpeedup(x float64) load.Pacer
}

// traceAt is the scenario's trace replayed at speedup x, nil when the
// scenario has none (checkSpeedup refuses a search by speedup then).
func (sc Scenario) traceAt(x float64) load.Pacer {
	for _, p := range sc.Loads {
		if t, ok := p.(speedable); ok {
			return t.WithSpeedup(x)
		}
	}
	return nil
}

// checkSpeedup refuses a capacity search by speedup in a scenario with no
// trace: level to speed up.
func (p *configParser) checkSpeedup(sc Scenario, key string, set map[string]*yaml.Node) {
	if sc.Capacity != nil && sc.Capacity.By == "speedup" && sc.traceAt(1) == nil {
		v := set["capacity"]
		if v == nil {
			return // inherited, and checked where it was written
		}
		p.errf(v, key+".capacity.by", "a search by speedup replays a trace faster: set trace: {file: …} in the scenario")
	}
}
