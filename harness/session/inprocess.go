package session

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/guard"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// The runs this process sends itself rather than through go test's child
// (llmsla capacity, llmsla ab): opened, recorded and filed as a bench's
// are, through the same constructor and observers.

// InProcess is a run this process sends: its session, whose every sample
// and reading goes to the run's recording, and that recording.
type InProcess struct {
	*Session
	Rec recording.Run
}

// OpenInProcess checks the endpoints before anything is sent (the
// preflight: warn is told what only warns, a failure every request would
// share is an error), starts the recording of kind in dir with what the
// run measures (its provenance), and opens the session that records into
// it, guarded against an endpoint that fails every request alike.
func OpenInProcess(cfg *config.Config, kind, dir string, scenarios []Scenario, warn func(error)) (*InProcess, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := cfg.CheckBatch(Embeds(scenarios)); err != nil {
		return nil, err
	}
	rec := recording.NewRun(dir, kind, time.Now(), 0, 0)
	probe, err := New(cfg, Run{}, Options{})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	for _, sc := range scenarios {
		if _, err := probe.Source(sc); err != nil {
			probe.Close()
			return nil, err
		}
	}
	w, err := probe.Preflight(ctx)
	if w != nil && warn != nil {
		warn(w)
	}
	if err != nil {
		probe.Close()
		return nil, fmt.Errorf("preflight, before any request:\n%w", err)
	}
	prov := probe.Provenance(ctx, scenarios)
	probe.Close()
	if err := sample.CreateWithProvenance(rec.Samples(), prov, probe.secrets.RedactBytes); err != nil {
		return nil, err
	}
	o := Options{Samples: rec.Samples(), Server: rec.Server()}
	if cfg.Judge != nil {
		o.JudgeSamples = rec.Judge()
	}
	s, err := New(cfg, Run{AbortAfter: guard.DefaultAbortAfter}, o)
	if err != nil {
		return nil, err
	}
	return &InProcess{Session: s, Rec: rec}, nil
}

// Abandon closes a run that did not finish and keeps what it recorded as
// a partial run, returning where.
func (r *InProcess) Abandon() recording.Run {
	r.Close()
	kept, _ := r.Rec.MarkPartial()
	return kept
}

// CapacitySearch is one llmsla capacity: a scenario's search on each of
// its endpoints, each one's settings (its capacity: block with the flags
// on top), and the benchmark its limits are recorded under.
type CapacitySearch struct {
	Scenario  Scenario
	Benchmark string // BenchmarkChat
	Searches  map[string]config.Capacity
	Endpoints []string
}

// PrepareCapacity checks a search before any request: the endpoints
// (endpoint, "" for every selected one), each one's search, the
// scenario among the suites' definitions, and its benchmark.
func PrepareCapacity(cfg *config.Config, suites Suites, scenario, endpoint string, settings []string) (*CapacitySearch, error) {
	c := &CapacitySearch{Endpoints: cfg.EndpointNames(), Searches: map[string]config.Capacity{}}
	if endpoint != "" {
		if !slices.Contains(c.Endpoints, endpoint) {
			return nil, fmt.Errorf("-endpoint %q is not in %s (have: %s)", endpoint, cfg.Source, strings.Join(c.Endpoints, ", "))
		}
		c.Endpoints = []string{endpoint}
	}
	for _, ep := range c.Endpoints {
		cs, err := cfg.SearchCapacity(scenario, ep, settings)
		if err != nil {
			return nil, err
		}
		c.Searches[ep] = cs
	}
	sc, err := suites.Find("-scenario", scenario)
	if err != nil {
		return nil, err
	}
	c.Scenario = sc
	if c.Benchmark = suites.Benchmarks[sc.Name]; c.Benchmark == "" {
		return nil, fmt.Errorf("-scenario %s: no benchmark measures it (a func BenchmarkX calling harness.Bench), and the limit found is recorded as that benchmark's figure", sc.Name)
	}
	return c, nil
}

// Run searches each endpoint in turn, telling found each one's result
// (its steps so far and why it stopped, when it could not finish),
// and writes the recording's benchmark lines (each limit as its unit,
// max-rps, max-concurrency or max-speedup) once every search ended. A
// search that could not run (a stopped session, an interrupt) ends them
// all with its error: the steps so far are in the samples file.
func (c *CapacitySearch) Run(ctx context.Context, r *InProcess, found func(endpoint string, cs config.Capacity, res capacity.Result, err error)) error {
	fix, err := r.Source(c.Scenario)
	if err != nil {
		return err
	}
	var results []recording.Result
	for _, name := range c.Endpoints {
		ep, _, _ := r.Endpoint(name)
		cs := c.Searches[name]
		conf := r.cfg.Scenario(c.Scenario.Name, name)
		conf.Capacity = &cs
		res, err := r.Capacity(ctx, Cell{Scenario: c.Scenario.Name, Endpoint: ep, Settings: conf, Fixture: fix})
		if err == nil {
			err = context.Cause(ctx)
		}
		found(name, cs, res, err)
		if err != nil {
			return fmt.Errorf("%s endpoint=%s: %w", c.Scenario.Name, name, err)
		}
		results = append(results, recording.Result{Name: fmt.Sprintf("%s/endpoint=%s/capacity=%s", c.Benchmark, sample.NameValue(name), cs.By),
			Values: []benchfmt.Value{{Value: 0, Unit: "ns/op"}, {Value: res.Limit, Unit: cs.Unit()}}})
	}
	if err := r.Close(); err != nil {
		return err
	}
	header := recording.Header{Commit: Commit(), Date: time.Now(), Config: r.cfg.Source}
	for _, u := range metric.Units() {
		if u.Unit() == "max-rps" || u.Unit() == "max-concurrency" || u.Unit() == "max-speedup" {
			header.Units = append(header.Units, recording.Unit{Name: u.Unit(), Better: u.Better()})
		}
	}
	return recording.WriteResults(r.Rec.Txt(), header, results)
}
