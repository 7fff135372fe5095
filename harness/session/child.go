package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

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
	Run
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
}

// DefaultAbortAfter is how many consecutive failures of one such kind stop
// a run: enough that a transient refusal or two does not, few enough that
// a wrong URL costs seconds, not the run.
const DefaultAbortAfter = 10

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
// benchmark that -bench matched, naming its scenario.
type PlanEntry struct {
	Defined []Scenario `json:"defined,omitempty"`
	Bench   string     `json:"bench,omitempty"`
}

// ReadPlan reads a plan file: the defined scenarios, and the names of
// those whose benchmarks would run, in order, each once.
func ReadPlan(path string) (defined []Scenario, benched []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, maxPlan))
	seen := map[string]bool{}
	for {
		var e PlanEntry
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if e.Defined != nil {
			defined = e.Defined
		}
		if e.Bench != "" && !seen[e.Bench] {
			seen[e.Bench] = true
			benched = append(benched, e.Bench)
		}
	}
	return defined, benched, nil
}

// maxPlan bounds a plan file: the suites' definitions, not data.
const maxPlan = 16 << 20
