package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/sim"
)

// EnvSamples names the JSONL file every sample is appended to, so that a
// report can be computed from the raw data after the run.
const EnvSamples = "LLMSLA_SAMPLES"

// Session is the per-process state shared by all scenarios: the loaded
// configuration, one client per endpoint (so connections are pooled across
// scenarios), the simulators, and which runs (scenario × endpoint) have had
// their cold request and warm-up.
type Session struct {
	cfg     *Config
	clients map[string]*Client
	sims    map[string]*sim.Server
	answers *answerBook
	sink    *SampleFile

	closers []func()

	mu         sync.Mutex
	started    map[string]bool      // scenario/endpoint → cold request and warm-up sent
	breakdowns map[string]Breakdown // scenario/endpoint → what Run measured (Ollama)
}

// current is the session of the package-level Run and Bench: the
// configuration from the environment, loaded once per test binary.
var current = sync.OnceValues(func() (*Session, error) {
	cfg, err := LoadConfig()
	if err != nil {
		return nil, err
	}
	return NewSession(cfg)
})

// NewSession prepares cfg's endpoints for measuring: a client each, and a
// simulator for each simulated one. Close stops the simulators.
func NewSession(cfg *Config) (*Session, error) {
	var err error
	s := &Session{cfg: cfg, clients: map[string]*Client{}, sims: map[string]*sim.Server{},
		answers: newAnswerBook(), started: map[string]bool{}, breakdowns: map[string]Breakdown{}}
	for i := range cfg.Endpoints {
		ep := &cfg.Endpoints[i]
		if ep.Simulated {
			simCfg, err := simConfigFor(cfg, ep.Name)
			if err != nil {
				return nil, err
			}
			simCfg.Answer, simCfg.Wrong = s.answers.right, s.answers.wrong
			srv := sim.New(simCfg)
			s.sims[ep.Name] = srv
			hs := httptest.NewServer(srv)
			s.closers = append(s.closers, hs.Close)
			ep.BaseURL = hs.URL + "/v1"
		}
		s.clients[ep.Name] = NewClient(*ep)
	}
	if path := os.Getenv(EnvSamples); path != "" {
		if s.sink, err = OpenSampleFile(path); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Config returns the session's configuration.
func (s *Session) Config() *Config { return s.cfg }

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
}

func simConfigFor(cfg *Config, name string) (sim.Config, error) {
	spec := cfg.SimSpecs[name]
	if strings.TrimSpace(spec) == "" {
		return sim.Default(), nil
	}
	c, err := sim.ParseSpec(spec)
	if err != nil {
		return c, fmt.Errorf("%s: simulator spec of endpoint %s: %w", cfg.Source, name, err)
	}
	return c, nil
}

func validSimSpec(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	_, err := sim.ParseSpec(spec)
	return err
}

// run measures one scenario on one endpoint at one concurrency level.
func (s *Session) run(ctx context.Context, name string, ep Endpoint, conf ScenarioConfig, c, n int, prompts Prompts, extra ...Option) []Sample {
	// A run is one scenario on one endpoint (METRICS.md): its first request
	// is its cold start, and its warm-up is sent once, before the first level.
	key := name + "/" + ep.Name
	s.mu.Lock()
	first := !s.started[key]
	s.started[key] = true
	s.mu.Unlock()
	warm := 0
	if first {
		warm = conf.Warmup
	}
	cold := first
	opts := append([]Option{Labels(name), Concurrency(c), Warmup(warm), ColdFirst(cold)}, extra...)
	if s.sink != nil {
		opts = append(opts, Sink(s.sink.Write))
	}
	return NewRunner(opts...).Run(ctx, s.clients[ep.Name], withMaxTokens(prompts, conf.MaxTokens), n)
}

// answerBook tells the simulator what to answer: the reference answer of
// the fixture case whose messages it was sent, so that quality checks pass
// on a healthy simulator and fail exactly where it injects a wrong answer.
type answerBook struct {
	mu   sync.RWMutex
	byQ  map[string][2]string // last user message → right, wrong
	none [2]string
}

func newAnswerBook() *answerBook { return &answerBook{byQ: map[string][2]string{}} }

func (a *answerBook) add(question, right, wrong string) {
	a.mu.Lock()
	a.byQ[question] = [2]string{right, wrong}
	a.mu.Unlock()
}

func (a *answerBook) lookup(req *openai.ChatCompletionRequest) ([2]string, bool) {
	if len(req.Messages) == 0 {
		return a.none, false
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	v, ok := a.byQ[req.Messages[len(req.Messages)-1].Content]
	return v, ok
}

func (a *answerBook) right(req *openai.ChatCompletionRequest) string {
	if v, ok := a.lookup(req); ok && v[0] != "" {
		return v[0]
	}
	return lorem
}

func (a *answerBook) wrong(req *openai.ChatCompletionRequest) string {
	if v, ok := a.lookup(req); ok && v[1] != "" {
		return v[1]
	}
	return "I don't know."
}

const lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."

// SampleFile appends samples as JSON lines. Each line goes out in one write
// on an O_APPEND file, so an interrupted run leaves every finished sample
// readable (at most the last line is cut, and readers skip it).
type SampleFile struct {
	mu sync.Mutex
	f  *os.File
}

// OpenSampleFile opens path for appending.
func OpenSampleFile(path string) (*SampleFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvSamples, err)
	}
	return &SampleFile{f: f}, nil
}

// Close closes the file.
func (w *SampleFile) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// Write appends one sample; an error is reported once on stderr, not fatal,
// because the run's own verdict does not depend on the file.
func (w *SampleFile) Write(s *Sample) {
	b, err := json.Marshal(s)
	if err != nil {
		return
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return
	}
	if _, err := w.f.Write(b); err != nil {
		fmt.Fprintf(os.Stderr, "llmsla: writing samples: %v\n", err)
		w.f = nil
	}
}
