package session

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// Cell is one scenario on one endpoint at one load level: what
// [Session.Measure] sends. Settings are the scenario's on that endpoint
// (config.Config.Scenario); Fixture is the scenario's source (Session.Source).
type Cell struct {
	Scenario string
	Endpoint stream.Endpoint
	Settings config.Scenario
	Level    config.Level
	Fixture  *load.Fixture
}

// Name is the cell as people read it: "chat endpoint=prod concurrency=5".
func (c Cell) Name() string {
	return strings.TrimSpace(c.Scenario + " endpoint=" + c.Endpoint.Name + " " + strings.ReplaceAll(string(c.Level.Label()), "/", " "))
}

// Measure sends n measured requests of the cell, after its cold request
// and warm-up when the run (scenario × endpoint) or level has not had them,
// and returns every sample, in order. The runs of a scenario on an endpoint
// walk its fixture: each starts where the last measured one stopped, so
// that over its runs and levels every case is asked. A level of a
// prompt-length sweep asks synthetic prompts instead. A shard of a run
// sent by several machines sends its share of the n requests, of the
// level's load and of the fixture. A level this shard cannot take its share
// of (concurrency 1 over 3 shards), or a session stopped by its budget or
// by an endpoint failing alike, is an error.
func (s *Session) Measure(ctx context.Context, c Cell, n int) ([]sample.Sample, error) {
	return s.send(ctx, c, n, false, nil)
}

// Probe sends go test's probe of a benchmark (its call with b.N = 1): one
// request of the cell, warm-up, that moves neither the fixture nor a
// shard's slots, so that every shard sends it and they stay in step.
func (s *Session) Probe(ctx context.Context, c Cell) ([]sample.Sample, error) {
	return s.send(ctx, c, 1, true, nil)
}

// send sends one level of c: the schedule's take (the plan counts the
// same), told to every observer as it goes; a run of reps when reps is
// not nil.
func (s *Session) send(ctx context.Context, c Cell, n int, probe bool, reps *Repeats) ([]sample.Sample, error) {
	if err := s.halt.stopped(); err != nil {
		return nil, err
	}
	startLag := s.sched.waitStart(probe)
	sd, err := s.sched.take(c, n, probe)
	if err != nil {
		// The plan checks the configured levels, but not every level a
		// capacity search may step to.
		return nil, err
	}
	s.tokens.size(ctx, s.eps.clients[c.Endpoint.Name], c, sd)
	lv := level(c, sd, probe, s.run.Shard, s.eps.sims[c.Endpoint.Name], s.halt.stop)
	var until []load.Option
	if (c.Settings.StopDecided || s.run.UntilDecided) && stopsEarly(sd, probe) {
		until = untilDecided(lv, sd, reps)
	}
	opts := append(options(c, sd, lv, &s.obs, startLag, probe), until...)
	parent := ctx
	ctx, stop := s.halt.watch(ctx)
	defer stop()
	s.obs.LevelStart(ctx, lv)
	samples := load.NewRunner(opts...).Run(ctx, s.eps.clients[c.Endpoint.Name], sd.src, sd.pacer, sd.n)
	// The level's end is told on the caller's context: the judge judges
	// what was measured, even of a level a stop cut short.
	s.obs.LevelEnd(parent, lv, samples)
	if sd.sourced && sd.own.Err() != nil {
		return samples, fmt.Errorf("%s: %w", c.Name(), sd.own.Err())
	}
	return samples, s.halt.stopped()
}

// level is the observers' view of a send of c.
func level(c Cell, sd sends, probe bool, shard load.Shard, srv *sim.Server, stop func(error)) *observe.Level {
	lv := &observe.Level{Scenario: c.Scenario, Endpoint: c.Endpoint.Name, Label: c.Level.Label(), Probe: probe,
		Sourced: sd.sourced, QualityOff: c.Settings.QualityOff, Total: sd.total(), Stop: stop}
	if sd.duration > 0 {
		lv.Until = sd.duration
	}
	if shard.On() {
		lv.Shard = shard.String()
	}
	if srv != nil {
		lv.Settle = func() { srv.WaitIdle(simSettle) }
	}
	return lv
}

// stopsEarly reports whether a send may stop once decided: a count of
// single requests (not a soak's duration, a trace's rows, an agent's
// loops, a probe).
func stopsEarly(sd sends, probe bool) bool {
	return !probe && sd.duration == 0 && !sd.sourced && sd.steps <= 1
}

// untilDecided makes lv a level that stops once the sequential observer
// says its objectives are decided, after every fixture case is asked,
// (its samples carry its ceiling: options) — or, a run of reps of more
// than one run, that decides with the runs before it and is sent whole:
// once they are decided, the runs left send nothing (Repeats).
func untilDecided(lv *observe.Level, sd sends, reps *Repeats) []load.Option {
	var decided atomic.Bool
	lv.Decided, lv.Floor = func() { decided.Store(true) }, sd.cases
	if reps != nil && reps.s.run.together(reps.series.Runs) && reps.sent < reps.series.Runs {
		lv.Decided, lv.Series, lv.Rep = func() { reps.decided.Store(true) }, reps.series, reps.sent+1
		return nil
	}
	return []load.Option{load.Until(decided.Load)}
}

// simSettle is how long a level's observers wait for a simulator's
// handlers (observe.Level.Settle): it counts a request when its handler
// returns, a moment after the client read the end, and its Truth waits
// as long.
const simSettle = 200 * time.Millisecond

// options are the runner's for a send: its warm-up and cold request, the
// labels every sample carries, and the observers told of each sample and
// of the measured requests' start.
func options(c Cell, sd sends, lv *observe.Level, obs *observe.Set, startLag time.Duration, probe bool) []load.Option {
	label, shardName := lv.Label, lv.Shard
	opts := []load.Option{load.Warmup(sd.warm), load.ColdFirst(sd.cold), load.Probe(probe), load.SliceLength(c.Settings.SliceLength()),
		load.Tag(func(smp *sample.Sample) {
			smp.Scenario, smp.Level, smp.FixtureCases = c.Scenario, label, sd.cases
			smp.Shard, smp.StartLag = shardName, startLag
			smp.QualityOff = c.Settings.QualityOff || sd.sourced // a trace's rows carry no check
			smp.Cache = c.Settings.Cache.Or()
			if sd.sourced { // a trace's rows are sent as production's were: no marker
				smp.Cache = sample.CacheNatural
			}
			if lv.Decided != nil {
				smp.Ceiling = sd.n // it may stop before: stop: decided
			}
			if lv.Series != nil {
				smp.Reps, smp.Rep = lv.Series.Runs, lv.Rep // the runs after may send nothing
			}
		}),
		load.Sink(func(smp *sample.Sample) { obs.Sample(lv, smp) }),
		load.Measuring(func(run string) { lv.Run = run; obs.Measuring(lv) }),
		load.Seed(c.Settings.Seed), load.SessionHeader(c.Settings.SessionHeader)}
	if sd.duration > 0 {
		opts = append(opts, load.For(sd.duration))
	}
	return opts
}
