package config

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
)

// Level is one load level of a scenario: who sends when, and what.
type Level struct {
	Pacer load.Pacer
	// PromptTokens is the synthetic prompt length; 0: the fixture's cases.
	PromptTokens int
	// FixedTokens is the answer length every request asks for exactly
	// (output_tokens: {fixed: N}); 0: answers as long as they come.
	FixedTokens int
	// Batch is how many inputs each embeddings request carries (batch:,
	// Level.Source); 0: each case's own.
	Batch int
	// Search names the search the level is a step of ("capacity"); its
	// verdicts explore, they are not the SLA of the run.
	Search string
}

// Label is the level's labels: prompt_tokens=1024/concurrency=1,
// search=capacity/rate=42.
func (l Level) Label() sample.Level {
	var out sample.Level
	if l.Search != "" {
		out = sample.NewLevel("search", l.Search)
	}
	if l.PromptTokens != 0 {
		out = out.With("prompt_tokens", l.PromptTokens)
	}
	if l.FixedTokens != 0 {
		out = out.With("output_tokens", l.FixedTokens)
	}
	if l.Batch != 0 {
		out = out.With("batch", l.Batch)
	}
	for _, lb := range l.Pacer.Level().Labels() {
		out = out.With(lb.Key, lb.Value)
	}
	return out
}

// open reports whether the level is an open loop.
func (l Level) open() bool {
	_, ok := l.Pacer.(load.OpenLoop)
	return ok
}

// Levels are the scenario's load levels in order — each concurrency, each
// rate, then Loads — every open loop with the scenario's arrivals, for
// each batch size (or a case a request), for each prompt length (or the
// fixture).
func (sc Scenario) Levels() []Level {
	pacers := make([]load.Pacer, 0, len(sc.Concurrency)+len(sc.Rates)+len(sc.Loads))
	for _, c := range sc.Concurrency {
		pacers = append(pacers, load.Closed(c))
	}
	for _, r := range sc.Rates {
		pacers = append(pacers, load.Open{Rate: r})
	}
	pacers = append(pacers, sc.Loads...)
	prompts := sc.PromptTokens
	if len(prompts) == 0 {
		prompts = []int{0}
	}
	batches := sc.Batch
	if len(batches) == 0 {
		batches = []int{0}
	}
	var out []Level
	for _, pt := range prompts {
		for _, b := range batches {
			for _, p := range pacers {
				out = append(out, Level{Pacer: sc.arrive(p), PromptTokens: pt, FixedTokens: sc.FixedTokens, Batch: b})
			}
		}
	}
	return out
}

// arrive gives an open-loop level the scenario's arrivals: its process,
// burstiness, in-flight cap and seed, whichever key (rate:, ramp:) made
// the level and whichever endpoint override set them.
func (sc Scenario) arrive(p load.Pacer) load.Pacer {
	if o, ok := p.(load.OpenLoop); ok {
		return o.WithArrivals(load.Arrivals{Arrival: sc.Arrival, Burstiness: sc.Burstiness, MaxConcurrency: sc.MaxConcurrency, Seed: sc.Seed})
	}
	return p
}

// Span is how long level l runs when a time bounds it rather than a
// count: the scenario's duration (a soak), else the length its load sets
// (a ramp's over); 0 when the level is a count of requests. A caller that
// chooses the count itself (go test -benchtime) sends Requests instead
// when the span is > 0.
func (sc Scenario) Span(l Level) time.Duration {
	if sc.Duration > 0 {
		return sc.Duration
	}
	return l.Pacer.Length()
}

// Requests is how many measured requests a level sends: Samples, or for
// a level a time bounds (Span) what its load sends in that time (rate ×
// duration in open loop, a ramp's requests over its length), or
// MaxSamples in closed loop, where the duration stops it.
func (sc Scenario) Requests(l Level) int {
	d := sc.Span(l)
	if d <= 0 {
		return sc.Samples
	}
	if n, ok := l.Pacer.Requests(d); ok {
		return n
	}
	return MaxSamples
}

// MaxLevelDuration is the longest a level's schedule may take: a rate so
// low that its requests would take longer (rate: 0.0001 over 5 requests
// is 14 h) is a slip of the keyboard, refused before the run. A soak's
// duration is asked for, not implied, and is not bounded by it.
const MaxLevelDuration = 24 * time.Hour

// Expected is how long level l takes to send n measured requests when
// that is known before it runs — a soak's duration, an open loop's
// schedule (n / rate, a ramp's length) — and false when the server's pace
// decides (closed loop). The cold request and the warm-up come on top.
func (sc Scenario) Expected(l Level, n int) (time.Duration, bool) {
	if sc.Duration > 0 {
		return sc.Duration, true
	}
	return l.Pacer.Duration(n)
}

// CheckExpected reports a level whose n requests would be scheduled over
// more than MaxLevelDuration. Config checks every level it reads with its
// own count (Requests); a caller that sends another count (llmsla bench
// -n) checks that one.
func (sc Scenario) CheckExpected(l Level, n int) error {
	if sc.Duration > 0 {
		return nil
	}
	if d, ok := l.Pacer.Duration(n); ok && d > MaxLevelDuration {
		return fmt.Errorf("%s: %d requests would be scheduled over %s, more than a day (%v): raise the rate or send fewer",
			l.Label(), n, d.Round(time.Minute), MaxLevelDuration)
	}
	return nil
}

// checkLevels reports levels that cannot run — a time-bounded level whose
// load would send more than MaxSamples requests, a schedule longer than a
// day — at the key that made them, when it was written here (an
// inherited level was checked where it was written).
func (p *configParser) checkLevels(sc Scenario, key string, set map[string]*yaml.Node) {
	k, v := "", (*yaml.Node)(nil)
	for _, name := range append(loadKeys(), "samples", "duration") {
		if set[name] != nil {
			k, v = name, set[name]
			break
		}
	}
	if v == nil {
		return
	}
	for _, l := range sc.Levels() {
		n := sc.Requests(l)
		if d := sc.Span(l); d > 0 && n > MaxSamples {
			p.errf(v, key+"."+k, "%s over %s would send %d requests, more than %d: lower the rate or the duration", l.Label(), d, n, MaxSamples)
			continue
		}
		if err := sc.CheckExpected(l, n); err != nil {
			p.errf(v, key+"."+k, "%v", err)
		}
	}
}

// maxValueDepth bounds how deep a load key's value is read: the kinds
// read a list of mappings of scalars at most, and a deeper value is not
// one of theirs (refused by the kind as not what it wants).
const maxValueDepth = 4

// loadValue is a load key's YAML value as package load reads it.
func loadValue(n *yaml.Node, depth int) load.Value {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	v := load.Value{Line: n.Line, Text: n.Value}
	switch {
	case n.Kind == yaml.SequenceNode:
		v.Shape, v.Items = load.List, []load.Value{}
		for _, c := range n.Content {
			if depth < maxValueDepth {
				v.Items = append(v.Items, loadValue(c, depth+1))
			}
		}
	case n.Kind == yaml.MappingNode:
		v.Shape = load.Map
		for i := 0; i+1 < len(n.Content) && depth < maxValueDepth; i += 2 {
			v.Map = append(v.Map, load.Field{Key: n.Content[i].Value, Value: loadValue(n.Content[i+1], depth+1)})
		}
	}
	return v
}

// valueErrors places a kind's errors (load.ValueErrors) at their line and
// full key; one without a line at the load key's.
func (p *configParser) valueErrors(err error, n *yaml.Node, key string) {
	for _, e := range load.ValueErrors(err) {
		line, k := e.Line, key
		if line == 0 {
			line = n.Line
		}
		if e.Key != "" {
			k += "." + e.Key
		}
		p.errs = append(p.errs, &fileError{p.file, line, k, e.Msg})
	}
}

// RateLevel is an open-loop level at rate r with the scenario's arrivals
// (a sweep's steps, a capacity search's), labelled as a step of search.
func (sc Scenario) RateLevel(r float64, search string) Level {
	return Level{Pacer: sc.arrive(load.Open{Rate: r}), Search: search, FixedTokens: sc.FixedTokens, Batch: sc.searchBatch()}
}
