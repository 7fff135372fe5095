package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/export"
	"github.com/llmsla/llmsla/harness/guard"
	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/progress"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/sequential"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// Session is the per-process state shared by all scenarios: the loaded
// configuration, one client per endpoint (so connections are pooled across
// scenarios), the simulators, where the run is (schedule), and the
// observers every level is told about. What one concern needs it keeps in
// that concern's observer, in the concern's own package.
type Session struct {
	cfg      *config.Config
	run      Run
	eps      endpoints
	secrets  *secret.Set // the configuration's: redacted from every sample and file
	sched    *schedule
	obs      observe.Set
	concerns Concerns
	halt     halt
	bd       breakdowns
	tokens   tokenCounts
}

// endpoints are a session's clients, one per endpoint (the judge's too),
// and the simulators served for the simulated ones.
type endpoints struct {
	clients map[string]*stream.Client
	sims    map[string]*sim.Server
	answers *sim.Answers // what the simulators answer each fixture case
	closers []func()
}

// Concerns are the observers a session registers itself, for what their
// callers ask of them beyond the run: the verdict's server figures, the
// client's health, the judge's report and notes.
type Concerns struct {
	Servers *server.Watcher
	Health  *health.Observer // the client's own: could it keep time, level by level
	Judge   *judge.Judging
	Samples *recording.Samples // nil: no samples file
}

// Beside is the account of a level's samples beside the client's own:
// the server's figures (nil when none was read), with the client's error
// over the level where its health was measured.
func (c Concerns) Beside(samples []sample.Sample) *stats.Server {
	srv := c.Servers.Of(samples)
	if f, ok := c.Health.Of(samples); ok {
		srv = srv.WithClient(f.ErrorBound(), f.ErrorBoundMax())
	}
	return srv
}

// Options are what a session writes besides measuring, and the
// observers a caller adds (an exporter), told about every level after the
// session's own.
type Options struct {
	Samples  string // JSONL file every sample is appended to ("": none)
	Progress string // JSONL file of progress events ("": none)
	// JudgeSamples is the JSONL file every judge request's sample is
	// appended to ("": none): apart from Samples, in no measured figure.
	JudgeSamples string
	Server       string // JSONL file of the servers' readings ("": none; recording.ServerBeside the samples)
	// Stop is the file the reason a session stopped is written to, once
	// (StopFile): the command that started this process says it.
	Stop      string
	Observers []observe.Observer
}

// New prepares cfg's endpoints for measuring: a client each, and a
// simulator served on loopback for each simulated one (the judge's too),
// and registers the session's observers: the guard, the samples file,
// progress, the servers' readings, the client's health, the judge. Close
// stops them. The one
// constructor of every command that sends and of the go test glue.
func New(cfg *config.Config, run Run, o Options) (*Session, error) {
	s := &Session{cfg: cfg, run: run, secrets: secret.New(cfg.Secrets()...), sched: newSchedule(run),
		eps: endpoints{clients: map[string]*stream.Client{}, sims: map[string]*sim.Server{}, answers: &sim.Answers{}}}
	s.halt.init(o.Stop)
	if err := s.open(o); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// open serves the simulators, makes the clients and registers the
// observers, in the order they are told: the guard first (it stops what
// follows), the recorders, the servers' readings, the judge (an amender,
// told first at a level's end anyway), the OpenTelemetry export when the
// environment asks for it (after the readings it exports), the caller's.
func (s *Session) open(o Options) error {
	if err := s.eps.serve(s.cfg, s.secrets); err != nil {
		return err
	}
	if lim := (guard.Limits{AbortAfter: s.run.AbortAfter, MaxRequests: s.run.MaxRequests, MaxDuration: s.run.MaxDuration}); lim != (guard.Limits{}) {
		s.obs.Add(guard.New(lim))
	}
	if o.Samples != "" {
		// Samples come redacted from the client; the filter is a second line.
		f, err := sample.Create(o.Samples, s.secrets.RedactBytes)
		if err != nil {
			return fmt.Errorf("samples file: %w", err)
		}
		s.concerns.Samples = recording.NewSamples(f)
		s.obs.Add(s.concerns.Samples)
	}
	if p := progress.Open(o.Progress); p != nil {
		s.obs.Add(p)
	}
	var file *server.File
	if o.Server != "" {
		var err error
		if file, err = server.Create(o.Server, s.secrets.RedactBytes); err != nil {
			return fmt.Errorf("server file: %w", err)
		}
	}
	s.concerns.Servers = server.NewWatcher(s.cfg.Endpoints, s.cfg.Servers, file)
	s.obs.Add(s.concerns.Servers)
	s.obs.Add(sequential.New(s.cfg.Objectives))
	s.concerns.Health = health.NewObserver(s.eps.simLabel()...)
	s.obs.Add(s.concerns.Health)
	if err := s.openJudge(o); err != nil {
		return err
	}
	exp, err := export.FromEnv(s.cfg.Endpoints, func(lv *observe.Level, samples []sample.Sample) objective.Verdict {
		return objective.JudgeServer(samples, s.cfg.Objectives(lv.Scenario, lv.Endpoint), s.concerns.Beside(samples))
	})
	if err != nil {
		return err
	}
	if exp != nil {
		s.obs.Add(exp)
	}
	for _, ob := range o.Observers {
		s.obs.Add(ob)
	}
	return nil
}

// serve starts the simulator of each simulated endpoint of cfg and points
// the endpoint at it, and makes a client for every endpoint.
func (e *endpoints) serve(cfg *config.Config, secrets *secret.Set) error {
	for i := range cfg.Endpoints {
		ep := &cfg.Endpoints[i]
		if err := e.simulate(cfg, ep); err != nil {
			return err
		}
		e.clients[ep.Name] = stream.NewClient(*ep, stream.Secrets(secrets))
	}
	return nil
}

// simulate serves a simulated endpoint's simulator and points ep at it.
func (e *endpoints) simulate(cfg *config.Config, ep *stream.Endpoint) error {
	if !ep.Simulated {
		return nil
	}
	simCfg, err := cfg.Sim(ep.Name)
	if err != nil {
		return err
	}
	e.answers.Hook(&simCfg)
	srv := sim.New(simCfg)
	url, stop, err := sim.Serve(srv)
	if err != nil {
		return fmt.Errorf("endpoint %s: %w", ep.Name, err)
	}
	e.sims[ep.Name] = srv
	e.closers = append(e.closers, stop)
	ep.BaseURL = url + "/v1"
	return nil
}

// simLabel is the in-process simulators' profiler label, when there are
// any: the client's health measures the CPU they take from it.
func (e *endpoints) simLabel() []health.SimLabel {
	if len(e.sims) == 0 {
		return nil
	}
	return []health.SimLabel{{Key: sim.LabelKey, Value: sim.LabelValue}}
}

// close closes idle connections and stops the simulators.
func (e *endpoints) close() {
	for _, c := range e.clients {
		c.CloseIdle()
	}
	for _, f := range e.closers {
		f()
	}
}

// openJudge registers the configuration's judge, if it has one: its
// simulator served, its client made (the measured endpoint's own when it
// judges too), its cache opened (a cache file that cannot be read fails
// here, before any request).
func (s *Session) openJudge(o Options) error {
	var set *judge.Settings
	var client *stream.Client
	if jc := s.cfg.Judge; jc != nil {
		st := jc.Settings
		set = &st
		ep := &set.Endpoint
		if c := s.eps.clients[ep.Name]; c != nil && set.AllowSelf {
			client, *ep = c, c.Endpoint() // the endpoint measured judges too
		} else {
			if err := s.eps.simulate(s.cfg, ep); err != nil {
				return fmt.Errorf("judge %s: %w", ep.Name, err)
			}
			client = stream.NewClient(*ep, stream.Secrets(s.secrets))
			s.eps.clients[ep.Name] = client // measured nowhere: the preflight asks it
		}
		if ep.Simulated {
			simCfg, _ := s.cfg.Sim(ep.Name) // checked when it was served
			set.Digest = simCfg.JudgeDigest()
		}
	}
	j, err := judge.NewJudging(set, client, judge.Files{Samples: o.JudgeSamples, Redact: s.secrets.RedactBytes, Rejudge: s.run.Rejudge})
	if err != nil {
		return err
	}
	s.concerns.Judge = j
	s.obs.Add(j)
	return nil
}

// Config returns the session's configuration.
func (s *Session) Config() *config.Config { return s.cfg }

// Run returns how this session runs among others.
func (s *Session) Run() Run { return s.run }

// Secrets is the configuration's secrets, for whatever else is written.
func (s *Session) Secrets() *secret.Set { return s.secrets }

// Concerns are the session's own observers.
func (s *Session) Concerns() Concerns { return s.concerns }

// Sim returns the simulator behind a simulated endpoint (the judge's
// too), for tests that compare with its truth or change its latency model.
func (s *Session) Sim(endpoint string) *sim.Server { return s.eps.sims[endpoint] }

// Endpoint returns the endpoint of that name (a simulated one pointed at
// its simulator) and its client.
func (s *Session) Endpoint(name string) (stream.Endpoint, *stream.Client, bool) {
	i := slices.IndexFunc(s.cfg.Endpoints, func(e stream.Endpoint) bool { return e.Name == name })
	if i < 0 {
		return stream.Endpoint{}, nil, false
	}
	return s.cfg.Endpoints[i], s.eps.clients[name], true
}

// Close stops the session's simulators, closes idle connections and every
// observer; its error is the observers' (a samples file that could not
// be written whole).
func (s *Session) Close() error {
	s.eps.close()
	return s.obs.Close()
}

// Stopped is the reason the session sends nothing more (the budget, an
// endpoint that fails every request alike, a record that could not be
// written), nil while it sends. It wraps ErrStopped.
func (s *Session) Stopped() error { return s.halt.stopped() }

// SetSim changes the latency model and faults of a simulated endpoint's
// simulator, which still answers every fixture case as the session told it.
func (s *Session) SetSim(endpoint string, c sim.Config) {
	s.eps.answers.Hook(&c)
	s.eps.sims[endpoint].SetConfig(c)
}

// ErrStopped is what every send of a stopped session returns, wrapping
// the reason (a *guard.Stop, a record's error).
var ErrStopped = errors.New("the run was stopped")

// halt is a session's stop: the first reason wins, and what is in
// flight is cancelled.
type halt struct {
	mu   sync.Mutex
	err  error
	done chan struct{}
	file string // where the reason is written (StopFile)
}

func (h *halt) init(file string) { h.done, h.file = make(chan struct{}), file }

// stop records the first reason to stop, writes it for the command, and
// cancels what is in flight.
func (h *halt) stop(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return
	}
	h.err = fmt.Errorf("%w: %w", ErrStopped, err)
	close(h.done)
	if h.file != "" {
		writeStop(h.file, err)
	}
}

func (h *halt) stopped() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// watch returns ctx, cancelled when the session stops.
func (h *halt) watch(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-h.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
