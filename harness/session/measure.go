package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
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
	return s.send(ctx, c, n, false)
}

// Probe sends go test's probe of a benchmark (its call with b.N = 1): one
// request of the cell, warm-up, that moves neither the fixture nor a
// shard's slots, so that every shard sends it and they stay in step.
func (s *Session) Probe(ctx context.Context, c Cell) ([]sample.Sample, error) {
	return s.send(ctx, c, 1, true)
}

func (s *Session) send(ctx context.Context, c Cell, n int, probe bool) ([]sample.Sample, error) {
	if err := s.guard.stopped(); err != nil {
		return nil, err
	}
	shard := s.run.Shard
	pacer, err := shard.Pacer(c.Level.Pacer)
	if err != nil {
		// The plan checks the configured levels, but not every level a
		// capacity search may step to.
		return nil, fmt.Errorf("shard %s: %s: %w", shard, c.Level.Label(), err)
	}
	own, sourced := c.Level.Pacer.(load.Sourced)
	startLag := s.waitStart(probe)
	warm, first, src, cases := s.position(c, pacer, n, probe)
	if !sourced { // a trace's rows share the prefixes production's did
		src, warm = cacheSource(c, src, warm)
	}
	if !probe {
		n = shard.Share(n) // every shard sends go test's one probe request
	}
	label, shardName := c.Level.Label(), ""
	if shard.On() {
		shardName = shard.String()
	}
	total := n + warm
	if !probe && c.Fixture != nil && c.Level.PromptTokens == 0 && !sourced {
		total = n*c.Fixture.Steps() + warm // an agent loop's steps, at its most
	}
	if first {
		total++
	}
	progress := s.progressCell(c, total, probe)
	defer progress.end()
	judged, judgeCtx := s.judges(c) && !probe && !sourced, ctx // judged: the measured samples are written once judged
	ctx, stop := s.guard.watch(ctx)
	defer stop()
	opts := []load.Option{load.Warmup(warm), load.ColdFirst(first), load.Probe(probe), load.SliceLength(c.Settings.SliceLength()),
		load.Tag(func(smp *sample.Sample) {
			smp.Scenario, smp.Level, smp.FixtureCases = c.Scenario, label, cases
			smp.Shard, smp.StartLag = shardName, startLag
			smp.QualityOff = c.Settings.QualityOff || sourced // a trace's rows carry no check
			smp.Cache = c.Settings.Cache.Or()
		}),
		load.Sink(func(smp *sample.Sample) {
			if s.sink != nil && !(judged && smp.Measured()) {
				s.sink.Write(smp)
			}
			progress.add(smp)
			s.guard.add(c.Endpoint.Name, smp)
		})}
	if c.Settings.Duration > 0 && !probe {
		opts = append(opts, load.For(c.Settings.Duration))
	}
	opts = append(opts, load.Seed(c.Settings.Seed), load.SessionHeader(c.Settings.SessionHeader))
	if !sourced { // a level with its own requests (a trace's rows) sets their max_tokens
		src = load.MaxTokens(src, c.Settings.MaxTokens)
		if f := c.Settings.FixedTokens; f > 0 {
			src = load.FixedTokens(src, f)
		}
	}
	watch := s.watchServer(c, probe)
	if watch != nil {
		opts = append(opts, load.Measuring(s.beginWatch(c, watch)))
	}
	samples := load.NewRunner(opts...).Run(ctx, s.clients[c.Endpoint.Name], src, pacer, n)
	if watch != nil {
		s.endWatch(c, watch, samples)
	}
	if sourced && own.Err() != nil {
		return samples, fmt.Errorf("%s: %w", c.Name(), own.Err())
	}
	if judged {
		s.judgeLevel(judgeCtx, c, samples) // after the level's last measured request
	}
	return samples, s.guard.stopped()
}

// position says where the cell's requests come from and what precedes
// them: the warm-up count (the run's first level warms up the endpoint; a
// closed-loop level's first run opens as many connections as it has
// workers, so that no measured request pays for a connect and TLS
// handshake), whether the run's cold request is still to send, and the
// source from the fixture position the run is at (which a measured
// request moves on) or a synthetic prompt of the level's length.
func (s *Session) position(c Cell, pacer load.Pacer, n int, probe bool) (warm int, first bool, src load.Source, cases int) {
	key := c.Scenario + "/" + c.Endpoint.Name
	fix := c.Fixture
	s.mu.Lock()
	first = !s.started[key]
	s.started[key] = true
	levelKey := key + "/" + string(c.Level.Label())
	filled := s.started[levelKey]
	s.started[levelKey] = true
	at := s.next[key]
	own, sourced := c.Level.Pacer.(load.Sourced)
	if !probe && c.Level.PromptTokens == 0 && !sourced {
		s.next[key] = (at + s.positions(c, at, n)) % fix.Len()
	}
	s.mu.Unlock()
	if first {
		warm = c.Settings.Warmup
	}
	if !filled {
		warm = max(warm, pacer.Workers())
	}
	if sourced {
		return warm, first, own.Source(), 0
	}
	if c.Level.PromptTokens > 0 {
		return warm, first, load.NewSynthetic(c.Level.PromptTokens, s.synthSeed(c.Settings.Seed)), 0
	}
	return warm, first, s.run.Shard.Source(load.Shift(fix, at)), fix.Len()
}

// progressCell starts the progress of one cell of total requests for
// llmsla bench to show.
func (s *Session) progressCell(c Cell, total int, probe bool) *cell {
	until := time.Duration(0)
	if c.Settings.Duration > 0 && !probe {
		total, until = 0, c.Settings.Duration
	}
	return s.progress.cell(Progress{Cell: c.Name(), Total: total, Until: until, Probe: probe})
}

// synthSeed seeds a run's synthetic prompts: the scenario's seed, apart
// per shard and per run so that no run repeats another's prompts (a
// server's prefix cache would skip their prefill), or a fresh one.
func (s *Session) synthSeed(seed uint64) uint64 {
	if seed == 0 {
		return 0
	}
	s.mu.Lock()
	s.synthRuns++
	k := s.synthRuns
	s.mu.Unlock()
	return seed*1_000_003 + uint64(s.run.Shard.I)*10_007 + k
}

// waitStart holds the first request until the start the shards agreed on
// (Run.StartAt), so that their measured windows overlap, and returns how
// late this process got there (0 when it was early, or there is no
// agreement). With a slot per run (Run.LevelEvery), it holds the k-th
// measured run until StartAt + (k+1)·LevelEvery, and returns how late that
// run is: every shard runs the same runs in the same order, so the k-th
// slot of each is the same level, and a run that overran its slot makes
// the next one late, not every one after it. go test's probe runs wait for
// the start only: the first slot holds the first probe, the cold request
// and the warm-up, and each slot the probe of the run after it. Durations
// are measured on each machine's monotonic clock; only this alignment
// uses the wall clock.
func (s *Session) waitStart(probe bool) time.Duration {
	r := s.run
	s.startOnce.Do(func() {
		if r.StartAt.IsZero() {
			return
		}
		if d := time.Until(r.StartAt); d > 0 {
			time.Sleep(d)
			return
		}
		s.startLag = time.Since(r.StartAt)
	})
	if r.LevelEvery == 0 || probe {
		return s.startLag
	}
	s.mu.Lock()
	k := s.slots
	s.slots++
	s.mu.Unlock()
	slot := r.StartAt.Add(time.Duration(k+1) * r.LevelEvery)
	if d := time.Until(slot); d > 0 {
		time.Sleep(d)
		return 0
	}
	return time.Since(slot)
}
