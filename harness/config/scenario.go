package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/capacity"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
)

// Scenario says how to run a scenario and what it must meet.
type Scenario struct {
	Samples int // measured requests per level
	// Duration, when set, runs each level for this long instead of
	// Samples requests (a soak), in time slices of Slice.
	Duration time.Duration
	Slice    time.Duration
	Warmup   int // requests sent and set apart before measuring
	// MaxTokens caps each answer; OutputTokens, for synthetic prompts, is
	// the answer length asked for (it sets the cap).
	MaxTokens int

	// Load levels, each a level of its own, crossed with the prompt
	// lengths when there are: closed-loop concurrencies, open-loop rates
	// (a scenario written in Go, the presets), then Loads — the levels of
	// sla.yaml's load keys, of any registered kind (load.Kinds:
	// concurrency:, rate:, ramp:), in the registry's order.
	Concurrency []int
	Rates       []float64 // requests per second
	Loads       []load.Pacer
	// The arrivals of every open-loop level (load.Arrivals).
	Arrival    load.Arrival
	Burstiness float64
	// MaxConcurrency caps the requests in flight of an open loop.
	MaxConcurrency int
	Seed           uint64
	// PromptTokens sweeps synthetic prompts of these lengths instead of
	// the scenario's fixture (the TTFT-vs-input-length fit).
	PromptTokens []int
	// Batch sweeps embeddings requests of this many inputs each
	// (batch:, Level.Source), crossed with the load levels.
	Batch []int

	Objectives objective.Objectives
	// FixedTokens, when > 0, asks every answer for exactly this many
	// tokens (output_tokens: {fixed: N}; MaxTokens is N too), from
	// endpoints whose kind can be asked (stream.Kind.FixedLength).
	FixedTokens int
	// QualityOff sends the fixture's cases without judging the answers:
	// latency and errors only (quality: off; llmsla bench -latency-only
	// sets it on every scenario). A scenario's fixture is built once for
	// every endpoint, so it is a scenario's key, not an endpoint's.
	QualityOff bool
	// StopDecided lets a level stop before its count once each of its
	// objectives is decided by its confidence sequence (stop: decided;
	// llmsla bench -until decided sets it on every scenario): after the
	// warm-up and every fixture case asked, wrong at most
	// objective.Alpha of the time; the count is the ceiling.
	StopDecided bool

	// Capacity, when set, searches for the highest load at which every
	// objective holds (llmsla capacity, or a capacity: block).
	Capacity *Capacity
	// Sweep, when set, measures one stream, then saturation, then rates
	// between (a sweep: block), after the scenario's levels.
	Sweep *Sweep

	// Cache is how the prompts meet the server's prefix cache (cache:;
	// "" is natural), PrefixTokens the shared prefix of warm
	// (prefix_tokens:; WarmPrefix).
	Cache        sample.CachePolicy
	PrefixTokens int

	// SessionHeader names the header each turn of a conversation carries
	// with the conversation's id, for a router (conversation.go).
	SessionHeader string
}

// Capacity is a capacity search: by rate (open loop, Arrival) or by
// concurrency (closed loop), each level probed with Samples requests.
type Capacity struct {
	By string // "rate" or "concurrency"
	capacity.Options
	maxSet bool   // Max was written, not the default of By
	where  string // "file:line: key" of the capacity: block, "" from the environment
}

// capacityKeys are the settings of a search, in a capacity: block or
// $LLMSLA_CAPACITY.
var capacityKeys = []string{"by", "start", "max", "resolution", "repeats"}

// DefaultCapacity searches by rate from 1 request per second to 1,000 to
// within 10%, each level once.
func DefaultCapacity() Capacity { return defaultCapacity("rate") }

// defaultCapacity is the search by rate (DefaultCapacity) or by
// concurrency: from 1 to 1,024 requests in flight (doubling from 1 reaches
// it exactly), each level once.
func defaultCapacity(by string) Capacity {
	c := Capacity{By: by, Options: capacity.Options{Start: 1, Max: 1000, Resolution: 0.1, Repeats: 1}}
	if by == "concurrency" {
		c.Integer, c.Max = true, 1024
	}
	return c
}

// set sets one setting of the search from its text, as a capacity: block
// and $LLMSLA_CAPACITY both write it. Setting by keeps a max that was
// written, and otherwise takes the new kind's default.
func (c *Capacity) set(k, v string) error {
	switch k {
	case "by":
		if v != "rate" && v != "concurrency" && v != "speedup" {
			return fmt.Errorf("%q: want rate, concurrency or speedup (a trace: level's)", v)
		}
		d := defaultCapacity(v)
		c.By, c.Integer = d.By, d.Integer
		if !c.maxSet {
			c.Max = d.Max
		}
	case "start", "max", "resolution":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%q is not a number", v)
		}
		switch k {
		case "start":
			c.Start = f
		case "max":
			c.Max, c.maxSet = f, true
		default:
			c.Resolution = f
		}
	case "repeats":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return fmt.Errorf("%q is not a whole number from 1 to 100", v)
		}
		c.Repeats = n
	default:
		return fmt.Errorf("unknown key (allowed: %s)", strings.Join(capacityKeys, ", "))
	}
	return nil
}

// check reports settings a search cannot use: capacity.Options.Validate's
// (which refuses a fractional concurrency), a level beyond the bounds of a
// scenario's own levels.
func (c Capacity) check() error {
	if err := c.Validate(); err != nil {
		return err
	}
	top := float64(maxRate)
	if c.Integer {
		top = maxConcurrency
	}
	if c.Max > top {
		return fmt.Errorf("max %v: want at most %v", c.Max, top)
	}
	return nil
}

// Pacer is the load of level x of the search: the level at x of the kind
// it searches by (set allows only kinds that are one number), with the
// scenario's arrivals.
func (c Capacity) Pacer(sc Scenario, x float64) load.Pacer {
	if c.By == "speedup" {
		return sc.arrive(sc.traceAt(x))
	}
	k, _ := load.KindOf(c.By)
	return sc.arrive(k.At(x))
}

// Bounds on sizes, so that a slip of the keyboard is a configuration error
// rather than an out-of-memory crash an hour into a run.
const (
	MaxSamples     = 1_000_000
	maxConcurrency = load.MaxWorkers
	maxRate        = load.MaxRate
	maxPrompt      = 1 << 20
)

// loadKeys are the keys of the registered kinds of load level.
func loadKeys() []string {
	var out []string
	for _, k := range load.Kinds() {
		out = append(out, k.Key)
	}
	return out
}

// scenario parses one scenario's settings on top of its preset (or the
// generic ones), and hands each per-endpoint override to override.
func (p *configParser) scenario(cfg *Config, name string, n *yaml.Node, override func(ep string, n *yaml.Node)) {
	key := "scenarios." + name
	if !p.checkName(n, key, name) {
		return
	}
	cfg.lines[name] = n.Line
	base, ok := cfg.Scenarios[name]
	if !ok {
		base = Generic()
	}
	var per *yaml.Node
	sc := p.scenarioSettings(base, key, n, scenarioKeys, func(v *yaml.Node) { per = v })
	cfg.keepBatch(name, key, n)
	cfg.Scenarios[name] = sc
	if per == nil {
		return
	}
	cfg.PerEndpoint[name] = map[string]Scenario{}
	p.mapping(per, key+".endpoints", nil, func(ep string, v *yaml.Node) {
		cfg.PerEndpoint[name][ep] = p.scenarioSettings(sc, key+".endpoints."+ep, v, endpointScenarioKeys, nil)
		cfg.keepBatch(name, key+".endpoints."+ep, v)
		override(ep, v)
	})
}

// scenarioSettings applies the keys of n on top of base. The load levels
// written replace the ones inherited: rate: alone makes an open-loop
// scenario, concurrency: alone a closed-loop one, both run both.
func (p *configParser) scenarioSettings(base Scenario, key string, n *yaml.Node, keys section[*scenarioAt], endpoints func(*yaml.Node)) Scenario {
	s := &scenarioAt{Scenario: base, loads: map[string][]load.Pacer{}, endpoints: endpoints}
	s.Concurrency, s.Rates, s.Loads = slices.Clone(base.Concurrency), slices.Clone(base.Rates), slices.Clone(base.Loads)
	s.PromptTokens, s.Objectives = slices.Clone(base.PromptTokens), slices.Clone(base.Objectives)
	s.Batch = slices.Clone(base.Batch)
	set := map[string]*yaml.Node{}
	p.mapping(n, key, keys.names(), func(k string, v *yaml.Node) {
		set[k] = v
		keys.read(p, s, k, v, key)
	})
	sc := s.Scenario
	if set["samples"] != nil {
		sc.Duration = 0
	}
	if len(s.loads) > 0 {
		sc.Concurrency, sc.Rates, sc.Loads = nil, nil, nil
		for _, k := range load.Kinds() {
			sc.Loads = append(sc.Loads, s.loads[k.Key]...)
		}
	}
	if sc.Arrival == load.Gamma && sc.Burstiness == 0 {
		sc.Burstiness = 1
	}
	p.checkSettings(sc, key, set)
	return sc
}

// capacity reads a capacity: block at key.
func (p *configParser) capacity(v *yaml.Node, key string) *Capacity {
	c := DefaultCapacity()
	c.where = fmt.Sprintf("%s:%d: %s", p.file, v.Line, key)
	p.mapping(v, key, capacityKeys, func(ck string, v *yaml.Node) {
		if s := p.str(v, key+"."+ck); v.Kind == yaml.ScalarNode {
			if err := c.set(ck, s); err != nil {
				p.errf(v, key+"."+ck, "%v", err)
			}
		}
	})
	if err := c.check(); err != nil {
		p.errf(v, key, "%v", err)
	}
	return &c
}

// checkSettings reports keys that contradict each other, and levels that
// cannot run (checkLevels), where set says they were written.
func (p *configParser) checkSettings(sc Scenario, key string, set map[string]*yaml.Node) {
	if v, ok := set["samples"]; ok && set["duration"] != nil {
		p.errf(v, key+".samples", "set samples or duration, not both")
	}
	if v, ok := set["output_tokens"]; ok && set["max_tokens"] != nil {
		p.errf(v, key+".output_tokens", "output_tokens and max_tokens both set the answer's cap: give one")
	}
	if v, ok := set["burstiness"]; ok && sc.Arrival != load.Gamma {
		p.errf(v, key+".burstiness", "only gamma arrivals have a burstiness (set arrival: gamma)")
	}
	if v, ok := set["max_concurrency"]; ok && !slices.ContainsFunc(sc.Levels(), Level.open) {
		p.errf(v, key+".max_concurrency", "caps an open loop: set rate: (or another open-loop level) too; closed-loop levels are concurrency:")
	}
	p.checkLevels(sc, key, set)
	p.checkCache(sc, key, set)
	p.checkBatch(sc, key, set)
	p.checkConversation(sc, key, set)
	p.checkSpeedup(sc, key, set)
	if sc.QualityOff {
		for _, th := range sc.Objectives {
			if objective.Minimums.Has(th.Name) {
				v := set["sla"]
				if v == nil {
					v = set["quality"]
				}
				if v != nil {
					p.errf(v, key+".sla."+th.Key(), "quality: off judges no answer, so this objective could never be measured: remove it, or turn quality on")
				}
			}
		}
	}
}

// list calls fn for each item of a sequence node, or for a lone scalar.
func (p *configParser) list(v *yaml.Node, key, example string, fn func(*yaml.Node)) {
	if v.Kind == yaml.ScalarNode {
		fn(v)
		return
	}
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.errf(v, key, "want a value or a list of values, e.g. %s", example)
		return
	}
	for _, c := range v.Content {
		fn(c)
	}
}

func arrivals() string {
	s := make([]string, len(load.ArrivalProcesses))
	for i, a := range load.ArrivalProcesses {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// DefaultSlice is the time slice of a run (METRICS.md).
const DefaultSlice = time.Minute

// SliceLength is the length of the scenario's time slices.
func (sc Scenario) SliceLength() time.Duration {
	if sc.Slice > 0 {
		return sc.Slice
	}
	return DefaultSlice
}
