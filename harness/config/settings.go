package config

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
)

// scenarioAt is a scenario as its keys are read: the load levels of each
// load key written, and where its per-endpoint overrides go.
type scenarioAt struct {
	Scenario
	loads     map[string][]load.Pacer
	endpoints func(*yaml.Node)
}

// scenarioKeys are a scenario's keys, the load keys of every registered
// kind (concurrency:, rate:, ramp:) among them, endpoints last (an
// endpoint's overrides allow all but it).
var scenarioKeys = slices.Concat(section[*scenarioAt]{
	whole("samples", "measured requests per level", 1, MaxSamples, func(s *scenarioAt) *int { return &s.Samples }),
	positive("duration", "a soak instead of samples: each level sends for this long", func(s *scenarioAt) *time.Duration { return &s.Duration }),
	positive("slice", "the time slices of a soak (drift)", func(s *scenarioAt) *time.Duration { return &s.Slice }),
	whole("warmup", "sent at the level's load and set apart first", 0, MaxSamples, func(s *scenarioAt) *int { return &s.Warmup }),
	whole("max_tokens", "the answer's cap", 1, 1<<20, func(s *scenarioAt) *int { return &s.MaxTokens }),
}, loadRows(), section[*scenarioAt]{
	{"arrival", "the arrival process of open loops", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		s.Arrival = load.Arrival(p.str(v, key))
		if !slices.Contains(load.ArrivalProcesses, s.Arrival) {
			p.errf(v, key, "%q is not an arrival process (allowed: %s)", v.Value, arrivals())
		}
	}},
	{"burstiness", "gamma arrivals' shape", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		s.Burstiness = p.num(v, key)
		if !(s.Burstiness >= load.MinBurstiness) || math.IsInf(s.Burstiness, 0) {
			p.errf(v, key, "%q is not a gamma shape (want a number ≥ %v; 1 is Poisson, < 1 burstier, and below %v gaps underflow: every request would go out at once)",
				v.Value, load.MinBurstiness, load.MinBurstiness)
		}
	}},
	whole("max_concurrency", "the cap on requests in flight of an open loop", 0, maxConcurrency, func(s *scenarioAt) *int { return &s.MaxConcurrency }),
	{"seed", "of the arrival schedules and synthetic prompts", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		u, err := strconv.ParseUint(v.Value, 10, 64)
		if err != nil {
			p.errf(v, key, "%q is not a seed (a whole number ≥ 0)", v.Value)
		}
		s.Seed = u
	}},
	{"prompt_tokens", "synthetic prompts of these lengths instead of the fixture", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		s.PromptTokens = nil
		p.list(v, key, "[128, 1024, 4096]", func(v *yaml.Node) {
			s.PromptTokens = append(s.PromptTokens, p.count(v, key, 16, maxPrompt))
		})
	}},
	batchRow,
	{"output_tokens", "the answer's cap, or {fixed: N}: every answer N tokens", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		p.outputTokens(&s.Scenario, key, v)
	}},
	{"capacity", "a search for the highest load that holds", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		s.Capacity = p.capacity(v, key)
	}},
	{"sweep", "a rate sweep from one stream to saturation", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		s.Sweep = p.sweep(v, key)
	}},
	{"sla", "the objectives (SLA keys)", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		p.mapping(v, key, nil, func(m string, v *yaml.Node) {
			if p.turnObjectives(&s.Scenario, key+"."+m, m, v) || p.casePass(&s.Scenario, key+"."+m, m, v) {
				return
			}
			th, err := objective.Parse(m, p.num(v, key+"."+m))
			if err != nil {
				p.errf(v, key+"."+m, "%s", strings.TrimPrefix(err.Error(), m+": "))
				return
			}
			s.Objectives = s.Objectives.Set(th)
		})
	}},
	{"quality", "off: latency and errors only, the answers not judged", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		switch p.str(v, key) {
		case "off":
			s.QualityOff = true
		case "on":
			s.QualityOff = false
		default:
			p.errf(v, key, "%q: want on or off (off: latency and errors only, the answers not judged)", v.Value)
		}
	}},
	{"stop", "decided: a level stops once its objectives are decided (count: sends its count)", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		switch p.str(v, key) {
		case "decided":
			s.StopDecided = true
		case "count":
			s.StopDecided = false
		default:
			p.errf(v, key, "%q: want decided or count (decided: a level stops once every objective's confidence sequence is on one side of its threshold; count: it sends its samples)", v.Value)
		}
	}},
	{"cache", "how the prompts meet the server's prefix cache", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		p.cachePolicy(&s.Scenario, key, v)
	}},
	whole("prefix_tokens", "the shared prefix of cache: warm", 16, maxPrompt, func(s *scenarioAt) *int { return &s.PrefixTokens }),
	{"session_header", "the header naming each turn's conversation", func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		s.SessionHeader = p.sessionHeader(v, key)
	}},
	{"endpoints", "per-endpoint overrides of the keys above", func(_ *configParser, s *scenarioAt, v *yaml.Node, _ string) { s.endpoints(v) }},
})

// endpointScenarioKeys are what an endpoint's override may set: all but
// quality (the fixture is built once for every endpoint) and endpoints.
var endpointScenarioKeys = scenarioKeys.without("quality", "endpoints")

// loadRows are the keys of the registered kinds of load level, each
// read by its kind.
func loadRows() section[*scenarioAt] {
	var out section[*scenarioAt]
	for _, kind := range load.Kinds() {
		out = append(out, row[*scenarioAt]{kind.Key, "levels of " + kind.Key + ", e.g. " + kind.Example,
			func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
				pacers, err := kind.Levels(loadValue(v, 0))
				p.valueErrors(err, v, key)
				s.loads[kind.Key] = pacers
			}})
	}
	return out
}

// positive is a key of a duration > 0.
func positive(name, doc string, at func(*scenarioAt) *time.Duration) row[*scenarioAt] {
	return row[*scenarioAt]{name, doc, func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		d, err := parseDuration(v.Value)
		if err != nil || d <= 0 {
			p.errf(v, key, "%q is not a duration > 0 (e.g. 30m, 90s)", v.Value)
		}
		*at(s) = d
	}}
}
