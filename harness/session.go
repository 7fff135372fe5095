package harness

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// EnvSamples names the JSONL file every sample is appended to, so that a
// report can be computed from the raw data after the run.
const EnvSamples = "LLMSLA_SAMPLES"

// Session is the per-process state shared by all scenarios: the loaded
// configuration, one client per endpoint (so connections are pooled across
// scenarios), the simulators, and which runs (scenario × endpoint) have had
// their cold request and warm-up.
type Session struct {
	cfg      *config.Config
	clients  map[string]*stream.Client
	sims     map[string]*sim.Server
	answers  *sim.Answers // what the simulators answer each fixture case
	sink     *sample.File
	progress *progressFile
	secrets  *secret.Set // the configuration's: redacted from every sample and file

	closers []func()

	startOnce sync.Once
	startLag  time.Duration
	synthRuns uint64 // synthetic-prompt runs so far, to seed each apart

	mu         sync.Mutex
	slots      int                       // measured runs given a slot so far (-level-every)
	started    map[string]bool           // scenario/endpoint → cold request and warm-up sent
	next       map[string]int            // scenario/endpoint → the fixture position the next run starts at
	breakdowns map[string]ollama.Summary // scenario/endpoint → what Run measured (Ollama)
}

// current is the session of the package-level Run and Bench: the
// configuration from the environment, loaded once per test binary.
var current = sync.OnceValues(func() (*Session, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, err
	}
	if err := cfg.CheckScenarios(Defined()); err != nil {
		return nil, err
	}
	if c := cfg.CapacityOnly; c != "" && !slices.Contains(Defined(), c) {
		return nil, fmt.Errorf("%s: no such scenario %q to search (defined: %s)", config.EnvCapacity, c, strings.Join(Defined(), ", "))
	}
	return NewSession(cfg)
})

// NewSession prepares cfg's endpoints for measuring: a client each, and a
// simulator for each simulated one. Close stops the simulators.
func NewSession(cfg *config.Config) (*Session, error) {
	var err error
	s := &Session{cfg: cfg, clients: map[string]*stream.Client{}, sims: map[string]*sim.Server{},
		answers: &sim.Answers{}, started: map[string]bool{}, next: map[string]int{}, breakdowns: map[string]ollama.Summary{},
		secrets: secret.New(cfg.Secrets()...)}
	for i := range cfg.Endpoints {
		ep := &cfg.Endpoints[i]
		if ep.Simulated {
			simCfg, err := cfg.Sim(ep.Name)
			if err != nil {
				return nil, err
			}
			s.answers.Hook(&simCfg)
			srv := sim.New(simCfg)
			s.sims[ep.Name] = srv
			hs := httptest.NewServer(srv)
			s.closers = append(s.closers, hs.Close)
			ep.BaseURL = hs.URL + "/v1"
		}
		s.clients[ep.Name] = stream.NewClient(*ep, stream.Secrets(s.secrets))
	}
	s.progress = openProgress()
	if path := os.Getenv(EnvSamples); path != "" {
		// Samples come redacted from the client; the filter is a second line.
		if s.sink, err = sample.Create(path, s.secrets.RedactBytes); err != nil {
			return nil, fmt.Errorf("%s: %w", EnvSamples, err)
		}
	}
	return s, nil
}

// Config returns the session's configuration.
func (s *Session) Config() *config.Config { return s.cfg }

// Sim returns the simulator behind a simulated endpoint, for tests that
// compare with its truth or change its latency model.
func (s *Session) Sim(endpoint string) *sim.Server { return s.sims[endpoint] }

// Close stops the session's simulators and closes idle connections.
func (s *Session) Close() {
	for _, c := range s.clients {
		c.CloseIdle()
	}
	for _, f := range s.closers {
		f()
	}
	if s.sink != nil {
		s.sink.Close()
	}
	s.progress.close()
}

// mustRecord stops the test when the samples file failed: a run whose
// record misses requests must not pass for complete (llmsla bench judges
// the file, not the test's own figures).
func (s *Session) mustRecord(t testing.TB) {
	t.Helper()
	if s.sink != nil {
		if err := s.sink.Err(); err != nil {
			t.Fatalf("%v: the run's record is incomplete", err)
		}
	}
}

// run measures one scenario on one endpoint at one load level. Runs of a
// scenario on an endpoint walk its fixture: each starts where the last
// measured one stopped, so that over its runs and levels every case is
// asked. go test's benchmark probe (probe) is warm-up and moves nothing. A
// level of a prompt-length sweep asks synthetic prompts instead. A shard
// of a run sent by several machines sends its share of the n requests, of
// the level's load and of the fixture. A level this shard cannot take its
// share of (concurrency 1 over 3 shards) is an error, before any request.
func (s *Session) run(ctx context.Context, scenario string, ep stream.Endpoint, conf config.Scenario, lv config.Level, n int, fix *load.Fixture, probe bool) ([]sample.Sample, error) {
	shard := s.cfg.Shard
	pacer, err := shard.Pacer(lv.Pacer)
	if err != nil {
		// config.Load checks the configured levels, but not every level a
		// capacity search may step to.
		return nil, fmt.Errorf("shard %s: %s: %w", shard, lv.Label(), err)
	}
	startLag := s.waitStart(probe)
	// A run is one scenario on one endpoint (METRICS.md): its first request
	// is its cold start, and its warm-up is sent once, before the first level.
	key := scenario + "/" + ep.Name
	s.mu.Lock()
	first := !s.started[key]
	s.started[key] = true
	// A closed-loop level needs as many connections as it has workers:
	// its first run opens them in its warm-up, so that no measured
	// request pays for a connect and TLS handshake.
	filled := s.started[key+"/"+string(lv.Label())]
	s.started[key+"/"+string(lv.Label())] = true
	at := s.next[key]
	if !probe && lv.PromptTokens == 0 {
		s.next[key] = (at + n) % fix.Len()
	}
	s.mu.Unlock()
	warm := 0
	if first {
		warm = conf.Warmup
	}
	if c, closed := pacer.(interface{ Workers() int }); closed && !filled {
		warm = max(warm, c.Workers())
	}
	var src load.Source = shard.Source(load.Shift(fix, at))
	cases := fix.Len()
	if lv.PromptTokens > 0 {
		src, cases = load.NewSynthetic(lv.PromptTokens, s.synthSeed(conf.Seed, shard)), 0
	}
	if !probe {
		// Every shard sends go test's one probe request, so that the
		// shards stay in step through the levels.
		n = shard.Share(n)
	}
	label, shardName := lv.Label(), ""
	if shard.On() {
		shardName = shard.String()
	}
	progress := s.progressCell(scenario, ep, conf, label, n, warm, first, probe)
	defer progress.end()
	opts := []load.Option{load.Warmup(warm), load.ColdFirst(first), load.Probe(probe), load.SliceLength(conf.SliceLength()),
		load.Tag(func(smp *sample.Sample) {
			smp.Scenario, smp.Level, smp.FixtureCases = scenario, label, cases
			smp.Shard, smp.StartLag = shardName, startLag
		}),
		load.Sink(func(smp *sample.Sample) {
			if s.sink != nil {
				s.sink.Write(smp)
			}
			progress.add(smp)
		})}
	if conf.Duration > 0 && !probe {
		opts = append(opts, load.For(conf.Duration))
	}
	return load.NewRunner(opts...).Run(ctx, s.clients[ep.Name], load.MaxTokens(src, conf.MaxTokens), pacer, n), nil
}

// progressCell starts the progress of one run for llmsla bench to show.
func (s *Session) progressCell(scenario string, ep stream.Endpoint, conf config.Scenario, label sample.Level, n, warm int, first, probe bool) *cell {
	total, until := n+warm, time.Duration(0)
	if first {
		total++
	}
	if conf.Duration > 0 && !probe {
		total, until = 0, conf.Duration
	}
	name := strings.TrimSpace(scenario + " endpoint=" + ep.Name + " " + strings.ReplaceAll(string(label), "/", " "))
	if probe {
		name += " (warm-up)"
	}
	return s.progress.cell(name, total, until)
}

// synthSeed seeds a run's synthetic prompts: the scenario's seed, apart
// per shard and per run so that no run repeats another's prompts (a
// server's prefix cache would skip their prefill), or a fresh one.
func (s *Session) synthSeed(seed uint64, shard load.Shard) uint64 {
	if seed == 0 {
		return 0
	}
	s.mu.Lock()
	s.synthRuns++
	k := s.synthRuns
	s.mu.Unlock()
	return seed*1_000_003 + uint64(shard.I)*10_007 + k
}

// waitStart holds the first request until the start the shards agreed on
// (-start-at), so that their measured windows overlap, and returns how late
// this process got there (0 when it was early, or there is no agreement).
// With a slot per run (-level-every), it holds the k-th measured run until
// StartAt + (k+1)·LevelEvery, and returns how late that run is: every
// shard runs the same runs in the same order, so the k-th slot of each is
// the same level, and a run that overran its slot makes the next one late,
// not every one after it. go test's probe runs wait for the start only:
// the first slot holds the first probe, the cold request and the warm-up,
// and each slot the probe of the run after it. Durations are measured on
// each machine's monotonic clock; only this alignment uses the wall clock.
func (s *Session) waitStart(probe bool) time.Duration {
	s.startOnce.Do(func() {
		if s.cfg.StartAt.IsZero() {
			return
		}
		if d := time.Until(s.cfg.StartAt); d > 0 {
			time.Sleep(d)
			return
		}
		s.startLag = time.Since(s.cfg.StartAt)
	})
	if s.cfg.LevelEvery == 0 || probe {
		return s.startLag
	}
	s.mu.Lock()
	k := s.slots
	s.slots++
	s.mu.Unlock()
	slot := s.cfg.StartAt.Add(time.Duration(k+1) * s.cfg.LevelEvery)
	if d := time.Until(slot); d > 0 {
		time.Sleep(d)
		return 0
	}
	return time.Since(slot)
}
