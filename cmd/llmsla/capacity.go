package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/session"
)

// definitions lists the scenarios a package of suites defines (go test in
// plan mode). A variable, for a test to give the definitions itself and
// run the command without go test.
var definitions = func(pkg string) ([]session.Scenario, error) {
	defined, _, err := goTest{pkg: pkg, bench: "."}.plan()
	return defined, err
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
	eps, searches, sc, err := c.prepare(pkg)
	if err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return fail(err)
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	samples := filepath.Join(c.out, "capacity-"+stamp+".samples.jsonl")
	s, err := session.New(c.cfg, session.Run{AbortAfter: session.DefaultAbortAfter}, session.Options{Samples: samples, Server: server.FileName(samples)})
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	fix, err := s.Source(sc)
	if err != nil {
		return fail(err)
	}
	warn, err := s.Preflight(context.Background())
	if warn != nil {
		fmt.Fprintf(stderr, "llmsla capacity: warning: preflight:\n%v\nsearching anyway\n", warn)
	}
	if err != nil {
		return fail(fmt.Errorf("preflight, before any request of the search:\n%w", err))
	}
	var lines []string
	for _, name := range eps {
		line, err := c.searchOne(s, fix, name, searches[name], stdout)
		if err != nil {
			return fail(fmt.Errorf("%s endpoint=%s: %w; %s holds the steps so far", c.scenario, name, err, samples))
		}
		lines = append(lines, line)
	}
	txt := filepath.Join(c.out, "capacity-"+stamp+".txt")
	if err := atomicfile.Write(txt, []byte(capacityHeader(c.cfg)+strings.Join(lines, ""))); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "recorded %s and %s\n", txt, samples)
	return exitOK
}

// prepare checks everything before a request: the endpoints to search,
// each one's search (its capacity: block with the flags on top), and the
// scenario's definition among the suites'.
func (c capacityRun) prepare(pkg string) (eps []string, searches map[string]config.Capacity, sc session.Scenario, err error) {
	eps = c.cfg.EndpointNames()
	if c.endpoint != "" {
		if !slices.Contains(eps, c.endpoint) {
			return nil, nil, sc, fmt.Errorf("-endpoint %q is not in %s (have: %s)", c.endpoint, c.cfg.Source, strings.Join(eps, ", "))
		}
		eps = []string{c.endpoint}
	}
	searches = map[string]config.Capacity{}
	for _, ep := range eps {
		if searches[ep], err = c.cfg.SearchCapacity(c.scenario, ep, c.settings); err != nil {
			return nil, nil, sc, err
		}
	}
	defined, err := definitions(pkg)
	if err != nil {
		return nil, nil, sc, err
	}
	i := slices.IndexFunc(defined, func(d session.Scenario) bool { return d.Name == c.scenario })
	if i < 0 {
		return nil, nil, sc, fmt.Errorf("-scenario %q: no such scenario (defined: %s)", c.scenario, strings.Join(names(defined), ", "))
	}
	return eps, searches, defined[i], nil
}

// searchOne searches one endpoint, shows its steps and its answer, and
// returns its benchmark line.
func (c capacityRun) searchOne(s *session.Session, fix *load.Fixture, name string, cs config.Capacity, stdout io.Writer) (string, error) {
	ep, _ := s.Endpoint(name)
	conf := c.cfg.Scenario(c.scenario, name)
	conf.Capacity = &cs
	r, err := s.Capacity(context.Background(), session.Cell{Scenario: c.scenario, Endpoint: ep, Settings: conf, Fixture: fix})
	writeSteps(stdout, c.scenario, name, cs, r)
	if err == nil {
		err = s.RecordErr()
	}
	if err != nil {
		return "", err
	}
	fmt.Fprintln(stdout, session.CapacityLine(c.scenario, name, cs, r))
	return fmt.Sprintf("Benchmark%s/endpoint=%s/capacity=%s 1 0 ns/op %s %s\n",
		title(c.scenario), sample.NameValue(name), cs.By, strconv.FormatFloat(r.Limit, 'g', -1, 64), session.CapacityUnit(cs)), nil
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

// capacityHeader is the benchfmt configuration of a capacity record.
func capacityHeader(cfg *config.Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "commit: %s\nconfig: %s\n", gitCommit(), cfg.Source)
	for _, u := range metric.Units() {
		if u.Unit() == "max-rps" || u.Unit() == "max-concurrency" || u.Unit() == "max-speedup" {
			fmt.Fprintf(&b, "Unit %s better=%s\n", u.Unit(), u.Better())
		}
	}
	return b.String()
}

// title is chat as Chat, the suites' benchmark names.
func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
