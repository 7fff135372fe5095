package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// Scenario is one workload as a suite declares it: what to ask and how to
// judge the answers. How many requests, at which load and against which
// objectives comes from the SLA file, per endpoint.
type Scenario struct {
	Name    string // the key in the SLA file: chat, extraction, summary, batch, …
	Fixture string // JSONL cases, relative to the module root
	System  string // system prompt sent before each case's messages
	// Structured asks the endpoint for structured output: response_format
	// json_schema with the case's schema (json_object when it has none).
	Structured bool
	Lenient    bool // accept JSON inside a fence or prose, counted apart
	// Temperature and Seed make answers deterministic where the endpoint
	// allows it (golden outputs).
	Temperature *float32
	Seed        *int
	// Golden, a directory relative to the module root, compares each case's
	// answer with its golden file (go test -update rewrites them). It needs
	// Temperature 0 and a Seed.
	Golden string
}

var defined struct {
	sync.Mutex
	names []string
}

// Define declares a scenario and returns it. Suites declare theirs as
// package variables (var chat = harness.Define(harness.Scenario{…})), so
// that before the first request the SLA file is checked against every
// scenario the suites define: a misspelt scenario there is an error, not
// objectives that silently apply to nothing.
func Define(sc Scenario) Scenario {
	defined.Lock()
	defer defined.Unlock()
	if !slices.Contains(defined.names, sc.Name) {
		defined.names = append(defined.names, sc.Name)
		slices.Sort(defined.names)
	}
	return sc
}

// Defined lists the names of the defined scenarios.
func Defined() []string {
	defined.Lock()
	defer defined.Unlock()
	return slices.Clone(defined.names)
}

// Run measures the scenario on every selected endpoint at every configured
// load level, as subtests (TestChat/endpoint=prod/concurrency=5), and
// fails one line per objective not met, naming the cases that failed most.
func Run(t *testing.T, sc Scenario) []objective.Verdict {
	t.Helper()
	return session(t).Run(t, sc)
}

// Bench measures the scenario as benchmarks, one iteration one request
// (BenchmarkChat/endpoint=prod/concurrency=5), reporting the run's figures
// in the units of the metric table.
func Bench(b *testing.B, sc Scenario) {
	b.Helper()
	session(b).Bench(b, sc)
}

// session returns the environment's session or stops the test with the
// configuration error, before any request is sent.
func session(t testing.TB) *Session {
	t.Helper()
	s, err := current()
	if err != nil {
		t.Fatalf("configuration: %v", err)
	}
	return s
}

// Run is the package-level Run on this session's endpoints; it returns the
// verdict of every run, in order, for tests that look further.
func (s *Session) Run(t *testing.T, sc Scenario) []objective.Verdict {
	t.Helper()
	src := s.mustSource(t, sc)
	var all []objective.Verdict
	for _, ep := range s.cfg.Endpoints {
		t.Run("endpoint="+sample.NameValue(ep.Name), func(t *testing.T) {
			if ep.Simulated {
				t.Logf("endpoint %s is the built-in simulator (config: %s)", ep.Name, s.cfg.Source)
			}
			goldens := goldenDir(t, sc, ep.Name)
			conf := s.cfg.Scenario(sc.Name, ep.Name)
			var run []objective.Verdict
			for _, lv := range conf.Levels() {
				t.Run(string(lv.Label()), func(t *testing.T) {
					samples, err := s.run(context.Background(), sc.Name, ep, conf, lv, conf.Requests(lv), src, false)
					if err != nil {
						t.Fatalf("%s endpoint=%s: %v", sc.Name, ep.Name, err)
					}
					s.mustRecord(t)
					v := objective.Judge(samples, conf.Objectives)
					run = append(run, v)
					t.Log(report.Line(v.Stats))
					for _, viol := range v.Violations {
						t.Errorf("%s endpoint=%s %s: %s", sc.Name, ep.Name, lv.Label(), viol)
					}
					if !v.OK() {
						var b strings.Builder
						report.Cases(&b, v.Stats, "    ")
						if b.Len() > 0 {
							t.Log(strings.TrimRight(b.String(), "\n"))
						}
					}
					if goldens != "" {
						CheckGolden(t, goldens, ep.Name, samples, updateGolden(), quality.Refuse(s.secrets))
					}
				})
			}
			// Coverage belongs to the run over every level: judged once here.
			for _, viol := range objective.CheckRuns(run) {
				t.Errorf("%s endpoint=%s: %s", sc.Name, ep.Name, viol)
			}
			if len(run) > 0 {
				st := run[len(run)-1].Stats
				t.Logf("coverage: %d of the %d cases of %s asked", st.Asked, st.FixtureCases, sc.Fixture)
			}
			all = append(all, run...)
			s.logBreakdown(t, sc.Name, ep, conf, src) // Ollama endpoints only: where the TTFT goes
		})
	}
	return all
}

// Bench is the package-level Bench on this session's endpoints.
func (s *Session) Bench(b *testing.B, sc Scenario) {
	b.Helper()
	src := s.mustSource(b, sc)
	printUnits.Do(func() { PrintBenchHeader(os.Stdout, s.cfg) })
	if only := s.cfg.CapacityOnly; only != "" && only != sc.Name {
		b.Skipf("llmsla capacity searches %s only", only)
	}
	for _, ep := range s.cfg.Endpoints {
		conf := s.cfg.Scenario(sc.Name, ep.Name)
		if s.cfg.CapacityOnly == sc.Name {
			s.benchCapacity(b, sc.Name, ep, conf, src)
			continue
		}
		// The measured runs of each level, in order: reps[k] holds the
		// k-th run (the k-th -count repetition) of every level.
		var reps [][]objective.Verdict
		for _, lv := range conf.Levels() {
			rep := 0
			b.Run(fmt.Sprintf("endpoint=%s/%s", sample.NameValue(ep.Name), lv.Label()), func(b *testing.B) {
				// The b.N = 1 call is go test's probe before the timed run
				// (-benchtime Nx, N > 1): its requests are warm-up.
				n := b.N
				if conf.Span(lv) > 0 && b.N > 1 {
					n = conf.Requests(lv) // a soak, a ramp: their time, whatever -benchtime says
				}
				samples, err := s.run(context.Background(), sc.Name, ep, conf, lv, n, src, b.N == 1)
				if err != nil {
					b.Fatalf("%s endpoint=%s: %v", sc.Name, ep.Name, err)
				}
				s.mustRecord(b)
				v := objective.Judge(samples, conf.Objectives)
				if b.N > 1 {
					if rep == len(reps) {
						reps = append(reps, nil)
					}
					reps[rep] = append(reps[rep], v)
					rep++
				}
				ReportMetrics(b, v.Stats)
				if ep.Kind == "ollama" && b.N > 1 {
					s.reportBreakdown(b, ep, conf, src)
				}
			})
		}
		s.benchWholeRun(b, ep, reps)
		if conf.Capacity != nil {
			s.benchCapacity(b, sc.Name, ep, conf, src)
		}
	}
}

// benchWholeRun reports the figures of a scenario's whole run on an
// endpoint (the prefill fit of a prompt-length sweep) as one more
// benchmark, endpoint=<name>/fit=prompt_tokens, after its levels. Each of
// its -count repetitions fits its own runs (the k-th run of every level),
// so that the gate sees the fit vary from run to run as it does, rather
// than one fit of everything repeated.
func (s *Session) benchWholeRun(b *testing.B, ep stream.Endpoint, reps [][]objective.Verdict) {
	fit := func(k int) *stats.Stats {
		if k >= len(reps) {
			return nil
		}
		// CheckRuns fills the whole run's figures into each verdict's
		// Stats. Its violations are not judged here: llmsla bench judges
		// the samples.
		objective.CheckRuns(reps[k])
		if st := reps[k][len(reps[k])-1].Stats; st.Prefill.N > 0 {
			return st
		}
		return nil // no sweep of two or more prompt lengths: no fit
	}
	if fit(0) == nil {
		return
	}
	k := 0
	b.Run(fmt.Sprintf("endpoint=%s/fit=prompt_tokens", sample.NameValue(ep.Name)), func(b *testing.B) {
		if b.N == 1 {
			return // go test's probe before each repetition
		}
		// Under -benchtime Nx (llmsla bench) go test calls this once per
		// repetition; a time-based benchtime calls it more often, and
		// the calls past the last repetition report the last one's fit.
		st := fit(min(k, len(reps)-1))
		k++
		if st == nil {
			b.Fatalf("fit=prompt_tokens: run %d of the sweep's levels has fewer than two prompt lengths to fit", min(k, len(reps)))
		}
		reportUnits(b, st, true)
	})
}

var printUnits sync.Once

// mustSource checks the scenario and loads its fixture, or stops the test
// with the error, before any request is sent.
func (s *Session) mustSource(t testing.TB, sc Scenario) *load.Fixture {
	t.Helper()
	if !slices.Contains(Defined(), sc.Name) {
		t.Fatalf("scenario %q is not defined: declare it with harness.Define, so that the SLA file is checked against it", sc.Name)
	}
	if err := s.cfg.CheckShard(sc.Name); err != nil {
		t.Fatalf("configuration: %v", err)
	}
	if sc.Golden != "" && !sc.deterministic() {
		t.Fatalf("scenario %s: golden outputs need Temperature 0 and a Seed", sc.Name)
	}
	src, err := s.source(sc)
	if err != nil {
		t.Fatalf("scenario %s: %v", sc.Name, err)
	}
	return src
}

// source builds the requests of a scenario from its fixture cases, and
// tells the simulators the right and wrong answer to each.
func (s *Session) source(sc Scenario) (*load.Fixture, error) {
	if sc.Fixture == "" {
		return nil, fmt.Errorf("no fixture: a scenario needs cases to send")
	}
	path := sc.Fixture
	if !filepath.IsAbs(path) {
		root, err := config.ModuleRoot()
		if err != nil {
			return nil, err
		}
		path = filepath.Join(root, path)
	}
	cases, err := quality.LoadCases(path)
	if err != nil {
		return nil, err
	}
	f, err := load.NewFixture(cases, load.FixtureOptions{System: sc.System, Structured: sc.Structured,
		Lenient: sc.Lenient, Temperature: sc.Temperature, Seed: sc.Seed})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Fixture, err)
	}
	for i := range cases {
		msgs := f.Prompt(i).Request.Messages
		s.answers.Add(msgs[len(msgs)-1].Content, cases[i].Answer, cases[i].WrongAnswer)
	}
	return f, nil
}
