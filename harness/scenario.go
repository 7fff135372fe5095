package harness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
)

// Scenario is one workload as a suite declares it (session.Scenario):
// what to ask and how to judge the answers. How many requests, at which
// load and against which objectives comes from the SLA file, per endpoint.
type Scenario = session.Scenario

var defined struct {
	sync.Mutex
	scenarios []Scenario
}

// Define declares a scenario and returns it. Suites declare theirs as
// package variables (var chat = harness.Define(harness.Scenario{…})), so
// that before the first request the SLA file is checked against every
// scenario the suites define: a misspelt scenario there is an error, not
// objectives that silently apply to nothing.
func Define(sc Scenario) Scenario {
	defined.Lock()
	defer defined.Unlock()
	i := slices.IndexFunc(defined.scenarios, func(d Scenario) bool { return d.Name == sc.Name })
	if i < 0 {
		defined.scenarios = append(defined.scenarios, sc)
		slices.SortFunc(defined.scenarios, func(a, b Scenario) int { return strings.Compare(a.Name, b.Name) })
	}
	return sc
}

// Defined lists the names of the defined scenarios.
func Defined() []string {
	defined.Lock()
	defer defined.Unlock()
	names := make([]string, len(defined.scenarios))
	for i, sc := range defined.scenarios {
		names[i] = sc.Name
	}
	return names
}

// definitions are the defined scenarios, for the command's plan.
func definitions() []Scenario {
	defined.Lock()
	defer defined.Unlock()
	return slices.Clone(defined.scenarios)
}

// current is the session of the package-level Run and Bench: the
// configuration from the environment and what llmsla told this test
// binary (session.Child), loaded once per test binary.
var current = sync.OnceValues(func() (*process, error) {
	child, err := session.ChildFromEnv()
	if err != nil {
		return nil, err
	}
	if child.Plan != "" {
		// The command checks the configuration against the plan.
		return &process{plan: newPlanFile(child.Plan)}, nil
	}
	cfg, err := config.Load()
	if err != nil {
		return nil, err
	}
	if err := cfg.CheckScenarios(Defined()); err != nil {
		return nil, err
	}
	if err := cfg.CheckBatch(session.Embeds(definitions())); err != nil {
		return nil, err
	}
	if child.LatencyOnly {
		cfg.LatencyOnly()
	}
	s, err := session.New(cfg, child.Run, child.Options())
	quietStops.Store(child.Stop != "")
	for _, k := range child.Skip {
		skipped.Store(k, true)
	}
	if err != nil {
		return nil, err
	}
	return &process{s: s}, nil
})

// process is what this test binary does: measure with its session, or
// (plan mode) list what it would measure.
type process struct {
	s    *session.Session
	plan *planFile
}

// Run measures the scenario on every selected endpoint at every configured
// load level, as subtests (TestChat/endpoint=prod/concurrency=5), and
// fails one line per objective not met, naming the cases that failed most.
func Run(t *testing.T, sc Scenario) []objective.Verdict {
	t.Helper()
	p := mustProcess(t)
	if p.plan != nil {
		t.SkipNow() // plan mode lists benchmarks; tests send nothing
	}
	return RunOn(t, p.s, sc)
}

// Bench measures the scenario as benchmarks, one iteration one request
// (BenchmarkChat/endpoint=prod/concurrency=5), reporting the run's figures
// in the units of the metric table.
func Bench(b *testing.B, sc Scenario) {
	b.Helper()
	p := mustProcess(b)
	if p.plan != nil {
		p.plan.bench(b, sc)
		return
	}
	BenchOn(b, p.s, sc)
}

// mustProcess returns the environment's session or stops the test with
// the configuration error, before any request is sent.
func mustProcess(t testing.TB) *process {
	t.Helper()
	p, err := current()
	if err != nil {
		t.Fatalf("configuration: %v", err)
	}
	return p
}

// RunOn is Run on session s's endpoints; it returns the verdict of every
// level, in order, for tests that look further.
func RunOn(t *testing.T, s *session.Session, sc Scenario) []objective.Verdict {
	t.Helper()
	src := mustSource(t, s, sc)
	cfg := s.Config()
	logJudgeNote(t, s, sc)
	var all []objective.Verdict
	for _, ep := range cfg.Endpoints {
		t.Run("endpoint="+sample.NameValue(ep.Name), func(t *testing.T) {
			if u, unfit := session.Unfit(sc, ep); unfit {
				t.Skip(u.String()) // not measured, and said so
			}
			if ep.Simulated {
				t.Logf("endpoint %s is the built-in simulator (config: %s)", ep.Name, cfg.Source)
			}
			for _, line := range s.Concerns().Servers.Sources(ep) {
				t.Log(escape.Text(line))
			}
			goldens := goldenDir(t, sc, ep.Name)
			base := session.Cell{Scenario: sc.Name, Endpoint: ep, Settings: cfg.Scenario(sc.Name, ep.Name), Fixture: src}
			var levels []objective.Verdict
			for _, lv := range base.Settings.Levels() {
				c := base
				c.Level = lv
				t.Run(string(lv.Label()), func(t *testing.T) {
					samples := measure(t, s, c)
					v := objective.JudgeServer(samples, c.Settings.Objectives, s.Concerns().Beside(samples))
					levels = append(levels, v)
					logVerdict(t, c, v)
					if goldens != "" {
						CheckGolden(t, goldens, ep.Name, samples, updateGolden(), quality.Refuse(s.Secrets()))
					}
				})
			}
			// Coverage belongs to the run over every level: judged once here.
			for _, viol := range objective.CheckRuns(levels) {
				t.Errorf("%s endpoint=%s: %s", sc.Name, ep.Name, viol)
			}
			if len(levels) > 0 {
				st := levels[len(levels)-1].Stats
				t.Logf("coverage: %d of the %d cases of %s asked", st.Asked, st.FixtureCases, sc.Fixture)
			}
			all = append(all, levels...)
			logJudgeReport(t, s)
			logBreakdown(t, s, base) // Ollama endpoints only: where the TTFT goes
		})
	}
	return all
}

// measure sends the cell's configured requests, or stops the test with
// why it could not (or why its record is incomplete).
func measure(t *testing.T, s *session.Session, c session.Cell) []sample.Sample {
	t.Helper()
	samples, err := s.Measure(context.Background(), c, c.Settings.Requests(c.Level))
	if err != nil {
		failSend(t, c.Name(), err)
	}
	return samples
}

// logVerdict logs a level's figures and fails its violated objectives,
// naming the cases that failed most.
func logVerdict(t *testing.T, c session.Cell, v objective.Verdict) {
	t.Helper()
	t.Log(report.Line(v.Stats))
	var conv strings.Builder
	if report.Conversations(&conv, []objective.Verdict{v}); conv.Len() > 0 {
		t.Log(strings.TrimRight(conv.String(), "\n"))
	}
	if line := report.ServerLine(v.Stats); line != "" {
		t.Log(escape.Text(line)) // model names and errors a server sent
	}
	for _, viol := range v.Violations {
		t.Errorf("%s endpoint=%s %s: %s", c.Scenario, c.Endpoint.Name, c.Level.Label(), viol)
	}
	if !v.OK() {
		var b strings.Builder
		report.Cases(&b, v.Stats, "    ")
		if b.Len() > 0 {
			t.Log(strings.TrimRight(b.String(), "\n"))
		}
	}
}

// failSend stops the test or benchmark whose send failed, saying why —
// but a send of a session that stopped (its budget, an endpoint down, a
// record it could not write) under llmsla bench, which says the stop
// once: the benchmarks after it end without a message each (a skip go
// test does not print), and the command fails the run.
func failSend(t testing.TB, what string, err error) {
	t.Helper()
	if errors.Is(err, session.ErrStopped) && quietStops.Load() {
		t.SkipNow()
	}
	t.Fatalf("%s: %s", what, escape.Text(err.Error()))
}

// skipped holds scenario/endpoint of each scenario an endpoint cannot
// serve (session.Child.Skip): llmsla bench found it before the run, and
// says it under the verdicts.
var skipped sync.Map

// quietStops is set when llmsla bench started this test binary with a
// stop file (session.Child.Stop): it says the stop.
var quietStops atomic.Bool

// mustSource checks the scenario and loads its fixture, or stops the test
// with the error, before any request is sent.
func mustSource(t testing.TB, s *session.Session, sc Scenario) *load.Fixture {
	t.Helper()
	if !slices.Contains(Defined(), sc.Name) {
		t.Fatalf("scenario %q is not defined: declare it with harness.Define, so that the SLA file is checked against it", sc.Name)
	}
	if err := session.CheckShard(s.Config(), sc, s.Run().Shard); err != nil {
		t.Fatalf("configuration: %v", err)
	}
	src, err := s.Source(sc)
	if err != nil {
		t.Fatalf("%s", escape.Text(err.Error()))
	}
	return src
}
