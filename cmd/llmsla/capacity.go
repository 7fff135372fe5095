package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/guard"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/session"
	"golang.org/x/perf/benchfmt"
)

// definitions lists the scenarios a package of suites defines (go test in
// plan mode). A variable, for a test to give the definitions itself and
// run the command without go test.
var definitions = func(pkg string) (session.Suites, error) {
	return session.GoTest{Pkg: pkg, Bench: "."}.Suites()
}

// runCapacity searches the highest load at which every objective of a
// scenario holds, on each selected endpoint, in this process: each step a
// level of the scenario's samples: requests, recorded (labelled
// search=capacity) in results/ but not as results/latest.*, the answer last.
func runCapacity(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("capacity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scenario := fs.String("scenario", "chat", "the scenario to search (one the suites define)")
	endpoint := fs.String("endpoint", "", "the endpoint to search (default: every selected one)")
	out := fs.String("out", "results", "directory of recorded runs")
	pkg := fs.String("pkg", "./suites/...", "package of the scenarios")
	var set []string
	for _, k := range []struct{ name, usage string }{
		{"by", "rate (open loop), concurrency (closed loop) or speedup (the scenario's trace: replayed faster); default: the scenario's capacity: block, else rate"},
		{"start", "the first level tried (default 1)"},
		{"max", "the highest level tried (default 1000 req/s, 1024 in flight)"},
		{"resolution", "how close the last good and first bad levels end, relative (default 0.1)"},
		{"repeats", "runs of each level, every one must hold (default 1)"},
	} {
		fs.Func(k.name, k.usage, func(v string) error { set = append(set, k.name+"="+v); return nil })
	}
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: llmsla capacity [flags]

Finds the highest load (rate, or concurrency) at which every objective of
the scenario holds on each endpoint: doubling from -start until a level
fails, then bisecting to -resolution. Each level sends the scenario's
samples: requests. Prints every step, then the limit and the first
objective that fails above it; records every step in results/ with the
limit as max-rps (max-concurrency). Exit 0 when the search ran, 2 when it
could not.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitBroken
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla capacity: %v\n", err)
		return exitBroken
	}
	stdout, stderr, _, done := redacting(cfg, stdout, stderr)
	defer done()
	c := capacityRun{cfg: cfg, scenario: *scenario, endpoint: *endpoint, settings: set, out: *out}
	return c.search(*pkg, stdout, stderr)
}

// capacityRun is one llmsla capacity.
type capacityRun struct {
	cfg                *config.Config
	scenario, endpoint string
	settings           []string
	out                string
}

func (c capacityRun) search(pkg string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "llmsla capacity: %v\n", err)
		return exitBroken
	}
	eps, searches, sc, bench, err := c.prepare(pkg)
	if err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return fail(err)
	}
	rec := recording.NewRun(c.out, recording.KindCapacity, time.Now(), 0, 0)
	sec := secret.New(c.cfg.Secrets()...)
	if err := prepareSends(c.cfg, rec, []session.Scenario{sc}, sec, "searching", stderr); err != nil {
		return fail(err)
	}
	s, err := session.New(c.cfg, session.Run{AbortAfter: guard.DefaultAbortAfter}, filesOf(c.cfg, rec))
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	fix, err := s.Source(sc)
	if err != nil {
		return fail(err)
	}
	ctx, stop := interrupts()
	defer stop()
	var results []recording.Result
	for _, name := range eps {
		r, err := c.searchOne(ctx, s, fix, bench, name, searches[name], stdout)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			err = why(ctx, err)
			s.Close()
			kept, _ := rec.MarkPartial()
			return fail(fmt.Errorf("%s endpoint=%s: %w; %s holds the steps so far (no limit is recorded)", c.scenario, name, err, kept.Samples()))
		}
		results = append(results, r)
	}
	if err := s.Close(); err != nil {
		return fail(err)
	}
	header := recording.Header{Commit: session.Commit(), Date: time.Now(), Config: c.cfg.Source}
	for _, u := range metric.Units() {
		if u.Unit() == "max-rps" || u.Unit() == "max-concurrency" || u.Unit() == "max-speedup" {
			header.Units = append(header.Units, recording.Unit{Name: u.Unit(), Better: u.Better()})
		}
	}
	if err := recording.WriteResults(rec.Txt(), header, results); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "recorded %s and %s\n", rec.Txt(), rec.Samples())
	return exitOK
}

// prepare checks everything before a request: the endpoints to search,
// each one's search (its capacity: block with the flags on top), the
// scenario's definition among the suites' and its benchmark, whose name
// the limit is recorded under.
func (c capacityRun) prepare(pkg string) (eps []string, searches map[string]config.Capacity, sc session.Scenario, bench string, err error) {
	eps = c.cfg.EndpointNames()
	if c.endpoint != "" {
		if !slices.Contains(eps, c.endpoint) {
			return nil, nil, sc, "", fmt.Errorf("-endpoint %q is not in %s (have: %s)", c.endpoint, c.cfg.Source, strings.Join(eps, ", "))
		}
		eps = []string{c.endpoint}
	}
	searches = map[string]config.Capacity{}
	for _, ep := range eps {
		if searches[ep], err = c.cfg.SearchCapacity(c.scenario, ep, c.settings); err != nil {
			return nil, nil, sc, "", err
		}
	}
	suites, err := definitions(pkg)
	if err != nil {
		return nil, nil, sc, "", err
	}
	sc, ok := suites.Scenario(c.scenario)
	if !ok {
		return nil, nil, sc, "", fmt.Errorf("-scenario %q: no such scenario (defined: %s)", c.scenario, strings.Join(suites.Names(), ", "))
	}
	if bench = suites.Benchmarks[sc.Name]; bench == "" {
		return nil, nil, sc, "", fmt.Errorf("-scenario %s: no benchmark measures it (a func BenchmarkX calling harness.Bench), and the limit found is recorded as that benchmark's figure", sc.Name)
	}
	return eps, searches, sc, bench, nil
}

// searchOne searches one endpoint, shows its steps and its answer, and
// returns its benchmark line.
func (c capacityRun) searchOne(ctx context.Context, s *session.Session, fix *load.Fixture, bench, name string, cs config.Capacity, stdout io.Writer) (recording.Result, error) {
	ep, _, _ := s.Endpoint(name)
	conf := c.cfg.Scenario(c.scenario, name)
	conf.Capacity = &cs
	r, err := s.Capacity(ctx, session.Cell{Scenario: c.scenario, Endpoint: ep, Settings: conf, Fixture: fix})
	writeSteps(stdout, c.scenario, name, cs, r)
	if err != nil {
		return recording.Result{}, err
	}
	fmt.Fprintln(stdout, report.CapacityLine(c.scenario, name, cs.By, cs.Resolution, r))
	return recording.Result{Name: fmt.Sprintf("%s/endpoint=%s/capacity=%s", bench, sample.NameValue(name), cs.By),
		Values: []benchfmt.Value{{Value: 0, Unit: "ns/op"}, {Value: r.Limit, Unit: cs.Unit()}}}, nil
}

// writeSteps shows a search's steps, held or over, before its answer.
func writeSteps(w io.Writer, scenario, endpoint string, cs config.Capacity, r capacity.Result) {
	for _, st := range r.Steps {
		verdict := "held"
		if !st.OK {
			verdict = "over: " + st.Why
		}
		fmt.Fprintf(w, "  step %s endpoint=%s %s=%s: %s\n", scenario, endpoint, cs.By, metric.Num(st.Level), verdict)
	}
}
