package session

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// Session is the per-process state shared by all scenarios: the loaded
// configuration, one client per endpoint (so connections are pooled across
// scenarios), the simulators, and which runs (scenario × endpoint) have had
// their cold request and warm-up.
type Session struct {
	cfg      *config.Config
	run      Run
	clients  map[string]*stream.Client
	sims     map[string]*sim.Server
	answers  *sim.Answers // what the simulators answer each fixture case
	sink     *sample.File
	progress *progressFile
	secrets  *secret.Set // the configuration's: redacted from every sample and file
	guard    *guard      // the budget and the abort on repeated failures
	judging  *judging    // the judge of answers under rubrics (judge.go)
	servers  servers     // the endpoints' servers read over each level (scrape.go)

	closers []func()

	startOnce sync.Once
	startLag  time.Duration
	synthRuns uint64 // synthetic-prompt runs so far, to seed each apart

	mu         sync.Mutex
	slots      int                       // measured runs given a slot so far (Run.LevelEvery)
	started    map[string]bool           // scenario/endpoint → cold request and warm-up sent
	next       map[string]int            // scenario/endpoint → the fixture position the next run starts at
	breakdowns map[string]ollama.Summary // scenario/endpoint → what was measured (Ollama)
}

// Options are what a session writes besides measuring.
type Options struct {
	Samples  string // JSONL file every sample is appended to ("": none)
	Progress string // JSONL file of progress events ("": none)
	// JudgeSamples is the JSONL file every judge request's sample is
	// appended to ("": none): apart from Samples, in no measured figure.
	JudgeSamples string
	Server       string // JSONL file of the servers' readings ("": none; server.FileName beside the samples)
}

// New prepares cfg's endpoints for measuring: a client each, and a
// simulator served on loopback for each simulated one. Close stops them.
// A sharded run whose levels cannot be split is an error here, before
// any request.
func New(cfg *config.Config, run Run, o Options) (*Session, error) {
	s := &Session{cfg: cfg, run: run, clients: map[string]*stream.Client{}, sims: map[string]*sim.Server{},
		answers: &sim.Answers{}, started: map[string]bool{}, next: map[string]int{}, breakdowns: map[string]ollama.Summary{},
		secrets: secret.New(cfg.Secrets()...), guard: newGuard(run)}
	s.servers.of, s.servers.windows = map[string]*endpointServer{}, map[string]*stats.Server{}
	if err := s.serve(); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.openJudge(o); err != nil {
		s.Close()
		return nil, err
	}
	s.progress = openProgress(o.Progress)
	if o.Samples != "" {
		var err error
		// Samples come redacted from the client; the filter is a second line.
		if s.sink, err = sample.Create(o.Samples, s.secrets.RedactBytes); err != nil {
			s.Close()
			return nil, fmt.Errorf("samples file: %w", err)
		}
	}
	if o.Server != "" {
		var err error
		if s.servers.file, err = server.Create(o.Server, s.secrets.RedactBytes); err != nil {
			s.Close()
			return nil, fmt.Errorf("server file: %w", err)
		}
	}
	return s, nil
}

// serve starts the simulator of each simulated endpoint and points the
// endpoint at it, and makes a client for every endpoint.
func (s *Session) serve() error {
	for i := range s.cfg.Endpoints {
		ep := &s.cfg.Endpoints[i]
		if ep.Simulated {
			simCfg, err := s.cfg.Sim(ep.Name)
			if err != nil {
				return err
			}
			s.answers.Hook(&simCfg)
			srv := sim.New(simCfg)
			url, stop, err := sim.Serve(srv)
			if err != nil {
				return fmt.Errorf("endpoint %s: %w", ep.Name, err)
			}
			s.sims[ep.Name] = srv
			s.closers = append(s.closers, stop)
			ep.BaseURL = url + "/v1"
		}
		s.clients[ep.Name] = stream.NewClient(*ep, stream.Secrets(s.secrets))
	}
	return nil
}

// Config returns the session's configuration.
func (s *Session) Config() *config.Config { return s.cfg }

// Run returns how this session runs among others.
func (s *Session) Run() Run { return s.run }

// Secrets is the configuration's secrets, for whatever else is written.
func (s *Session) Secrets() *secret.Set { return s.secrets }

// Sim returns the simulator behind a simulated endpoint, for tests that
// compare with its truth or change its latency model.
func (s *Session) Sim(endpoint string) *sim.Server { return s.sims[endpoint] }

// Endpoint returns the endpoint of that name (a simulated one pointed at
// its simulator).
func (s *Session) Endpoint(name string) (stream.Endpoint, bool) {
	i := slices.IndexFunc(s.cfg.Endpoints, func(e stream.Endpoint) bool { return e.Name == name })
	if i < 0 {
		return stream.Endpoint{}, false
	}
	return s.cfg.Endpoints[i], true
}

// Client returns the client of the endpoint of that name.
func (s *Session) Client(name string) *stream.Client { return s.clients[name] }

// RecordErr is the samples file's first write error: a run whose record
// misses requests must not pass for complete (llmsla bench judges the file).
func (s *Session) RecordErr() error {
	if s.sink == nil {
		return nil
	}
	return s.sink.Err()
}

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
	s.servers.close()
	s.progress.close()
}

// Stopped is the reason the session sends nothing more (the budget, or an
// endpoint that fails every request alike), nil while it sends.
func (s *Session) Stopped() error { return s.guard.stopped() }

// SetSim changes the latency model and faults of a simulated endpoint's
// simulator, which still answers every fixture case as the session told it.
func (s *Session) SetSim(endpoint string, c sim.Config) {
	s.answers.Hook(&c)
	s.sims[endpoint].SetConfig(c)
}
