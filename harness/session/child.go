package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/guard"
	"github.com/llmsla/llmsla/harness/load"
)

// EnvChild is the one variable of the child's environment that carries
// [Child].
const EnvChild = "LLMSLA_CHILD"

// Child is everything the llmsla command tells the go test binary it
// starts, beyond the configuration both read from the same environment:
// what to do (measure, or only say what it would measure), where to write
// the samples and progress, and this process's place in a run several
// processes send. The command sets it on the child's command line
// environment ([Child.Env]), never in its own; the test binary reads it
// once ([ChildFromEnv]). A test binary started by hand (go test
// ./suites/...) has none: it measures, writing no samples file.
type Child struct {
	// Plan, when set, asks the test binary to write the definitions of its
	// suites' scenarios and the benchmarks -bench matched to this file
	// (one JSON line each, [PlanEntry]), and to send nothing.
	Plan string `json:"plan,omitempty"`
	// Samples is the JSONL file every sample is appended to; Progress the
	// JSONL file of progress events ([Progress]).
	Samples  string `json:"samples,omitempty"`
	Progress string `json:"progress,omitempty"`
	// JudgeSamples is the JSONL file of the judge's own requests.
	JudgeSamples string `json:"judge_samples,omitempty"`
	// Server is the JSONL file of the servers' readings over each level.
	Server string `json:"server,omitempty"`
	// Stop is the file the reason the session stopped is written to, once
	// (ReadStop): the command says it once, and the test binary's
	// benchmarks after the stop end quietly rather than each failing with
	// it.
	Stop string `json:"stop,omitempty"`
	// Skip is scenario/endpoint of each scenario an endpoint cannot serve
	// (Bench.Unserved): its benchmarks there are not run.
	Skip []string `json:"skip,omitempty"`
	Run
}

// Options are the session's options the child's files say.
func (c Child) Options() Options {
	return Options{Samples: c.Samples, Progress: c.Progress, JudgeSamples: c.JudgeSamples, Server: c.Server, Stop: c.Stop}
}

// Run is how this process runs among others and within its budget: the
// options of a [Session] that do not come from the SLA file.
type Run struct {
	// Shard is this process's share of a run sent by Shard.N processes.
	Shard load.Shard `json:"shard,omitzero"`
	// StartAt is the wall-clock instant the shards agreed to start at;
	// with LevelEvery, the k-th measured run of every shard starts at
	// StartAt + (k+1)·LevelEvery (the first slot holds go test's probe
	// and the warm-up), so that the shards stay together through the
	// levels and repetitions instead of drifting apart after the first.
	StartAt    time.Time     `json:"start_at,omitzero"`
	LevelEvery time.Duration `json:"level_every_ns,omitempty"`
	// LatencyOnly judges latency and errors only: no quality check runs,
	// and the verdict says that quality was not judged (both processes
	// call config.Config.LatencyOnly).
	LatencyOnly bool `json:"latency_only,omitempty"`
	// AbortAfter stops the run after this many consecutive requests to
	// one endpoint failed with the same kind that no load explains
	// (connection refused, auth, not found): the rest would fail alike.
	// 0 sends everything (-keep-going).
	AbortAfter int `json:"abort_after,omitempty"`
	// MaxRequests and MaxDuration are the run's budget: past either, the
	// session sends nothing more and says so. 0 is no limit.
	MaxRequests int           `json:"max_requests,omitempty"`
	MaxDuration time.Duration `json:"max_duration_ns,omitempty"`
	// Rejudge asks the judge again about every answer, reading nothing
	// from its cache (llmsla bench -rejudge); the new judgments are cached.
	Rejudge bool `json:"rejudge,omitempty"`
	// UntilDecided lets every level stop once its objectives are decided
	// (llmsla bench -until decided), as stop: decided does a scenario's.
	UntilDecided bool `json:"until_decided,omitempty"`
	// Against is the recorded run a bench is gated against look by look
	// (llmsla bench -against BASE): the command's, not the child's.
	Against string `json:"-"`
	// PerRun is the measured requests each benchmark run sends (go test's
	// -benchtime Nx), which bounds a level's connection warm-up: it opens
	// no more connections than its measured requests use at once. 0: the
	// scenario's samples.
	PerRun int `json:"per_run,omitempty"`
}

// Env is c as the child's environment entry, to append to os.Environ().
func (c Child) Env() []string {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return []string{EnvChild + "=" + string(b)}
}

// ChildFromEnv reads the Child the command set; the zero Child when the
// test binary was started by hand.
func ChildFromEnv() (Child, error) {
	var c Child
	v := os.Getenv(EnvChild)
	if v == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		return c, fmt.Errorf("%s: %w (it is set by llmsla bench; unset it to run go test by hand)", EnvChild, err)
	}
	return c, nil
}

// PlanEntry is one line of a plan file (Child.Plan): the scenarios the
// test binary's suites define, written once, and then one line per
// benchmark that -bench matched, naming its scenario and its function.
type PlanEntry struct {
	Defined   []Scenario `json:"defined,omitempty"`
	Bench     string     `json:"bench,omitempty"`
	Benchmark string     `json:"benchmark,omitempty"` // BenchmarkChat
}

// Suites are what a plan file says of the suites: the scenarios they
// define, those whose benchmarks -bench matched (in go test's order,
// each once), and each benched scenario's benchmark function.
type Suites struct {
	Defined    []Scenario
	Benched    []string
	Benchmarks map[string]string // scenario → BenchmarkChat
}

// ReadPlan reads a plan file.
func ReadPlan(path string) (Suites, error) {
	out := Suites{Benchmarks: map[string]string{}}
	f, err := os.Open(path)
	if err != nil {
		return out, err
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, maxPlan))
	for {
		var e PlanEntry
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			return out, fmt.Errorf("%s: %w", path, err)
		}
		if e.Defined != nil {
			out.Defined = e.Defined
		}
		if _, seen := out.Benchmarks[e.Bench]; e.Bench != "" && !seen {
			out.Benchmarks[e.Bench] = e.Benchmark
			out.Benched = append(out.Benched, e.Bench)
		}
	}
	return out, nil
}

// Scenario is the defined scenario of that name.
func (s Suites) Scenario(name string) (Scenario, bool) {
	for _, sc := range s.Defined {
		if sc.Name == name {
			return sc, true
		}
	}
	return Scenario{}, false
}

// Find is the defined scenario of that name, or an error naming the
// defined ones (flag names the flag that gave it: -scenario).
func (s Suites) Find(flag, name string) (Scenario, error) {
	if sc, ok := s.Scenario(name); ok {
		return sc, nil
	}
	return Scenario{}, fmt.Errorf("%s %q: no such scenario (defined: %s)", flag, name, strings.Join(s.Names(), ", "))
}

// Names are the defined scenarios' names.
func (s Suites) Names() []string {
	out := make([]string, len(s.Defined))
	for i, sc := range s.Defined {
		out[i] = sc.Name
	}
	return out
}

// maxPlan bounds a plan file: the suites' definitions, not data.
const maxPlan = 16 << 20

// StopRecord is why a session stopped, as its stop file says it.
type StopRecord struct {
	// Why is guard's reason (budget, endpoint down), or "record" for a
	// samples file that could not be written whole.
	Why      string `json:"why"`
	Endpoint string `json:"endpoint,omitempty"`
	Message  string `json:"message"`
}

// writeStop writes err as a stop file, whole or not at all.
func writeStop(path string, err error) {
	rec := StopRecord{Why: "record", Message: err.Error()}
	var g *guard.Stop
	if errors.As(err, &g) {
		rec.Why, rec.Endpoint = string(g.Why), g.Endpoint
	}
	b, _ := json.Marshal(rec) // plain data: cannot fail
	atomicfile.Write(path, b)
}

// ReadStop reads a stop file: nil and no error when there is none (the
// session did not stop).
func ReadStop(path string) (*StopRecord, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rec StopRecord
	if err := json.NewDecoder(io.LimitReader(f, 64<<10)).Decode(&rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rec, nil
}
