package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// runAB sends a fixture's cases to two endpoints of the configuration,
// interleaved in the same time window, and gates the candidate against the
// base on the requests: 0 pass, 1 regression, 2 unusable (configuration,
// fixture, or no comparison possible) or blind (a latency that no change
// of would be seen with these requests).
func runAB(args []string, stdout, stderr io.Writer) int {
	f, code := parseAB(args, stderr)
	if f == nil {
		return code
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	f.configure(cfg.Gate) // the SLA file's gate: section, read once with the rest
	f.opts.Objective = boundBy(cfg)
	stdout, stderr, sec, done := redacting(cfg, stdout, stderr)
	defer done()
	cases, err := f.loadCases()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	arms, names, stop, err := abArms(cfg, f.endpoints, cases, sec)
	defer stop()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "A/B: %s (base) vs %s (candidate), interleaved: %d runs of %d pairs at concurrency %s, fixture %s — config: %s\n",
		names[0], names[1], f.count, f.n, f.levels, f.fixture, cfg.Source)
	base, cand, err := f.record(arms, cases, sec, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	f.opts.AcrossEndpoints = true // the two arms are two endpoints
	rep, err := gate.GateRequests(arms[0].Name, arms[1].Name, base, cand, f.opts)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	return writeVerdict("ab", rep, stdout, stderr)
}

// abRun is what the flags of llmsla ab ask for.
type abRun struct {
	opts                           gate.Options
	configure                      func(config.Gate)
	fixture, system, scenario, out string
	levels                         string
	structured                     bool
	n, count, warmup, maxTokens    int
	seed                           uint64
	pacers                         []load.Pacer
	endpoints                      []string
}

const abUsage = `usage: llmsla ab [flags] BASE_ENDPOINT CANDIDATE_ENDPOINT

Sends the fixture's cases to both endpoints of the configuration (sla.yaml,
or $LLMSLA_CONFIG) in the same time window: each case to both, in pairs
whose order is drawn at random, -count runs of -n pairs at each level.
Then gates the candidate against the base with the per-request tests of
llmsla gate: latency percentiles, and quality paired by case. No stored
baseline is needed, and whatever drifts (the machine, the network, a
shared server) drifts for both alike.

Exit codes as llmsla gate: 0 pass, 1 the candidate is worse, 2 unusable,
or blind: a latency percentile no change of which these requests would
show (record more with -n and -count, or -allow-blind the unit).

`

// parseAB reads the flags of llmsla ab; a nil run comes with the exit
// code.
func parseAB(args []string, stderr io.Writer) (*abRun, int) {
	fs := flag.NewFlagSet("ab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &abRun{}
	f.configure = decisionFlags(fs, &f.opts)
	fs.StringVar(&f.fixture, "fixture", "fixtures/classify.jsonl", "fixture cases to ask, relative to the module root")
	fs.StringVar(&f.system, "system", "Answer with the label only.", "system prompt sent before each case")
	fs.BoolVar(&f.structured, "structured", false, "ask for structured output (response_format with the case's schema)")
	fs.StringVar(&f.scenario, "scenario", "", "scenario name the samples are labelled with (default: the fixture's file name)")
	fs.IntVar(&f.n, "n", 20, "requests to each endpoint per run")
	fs.IntVar(&f.count, "count", 5, "runs per level (≥ 2: drift between runs is measured from them)")
	fs.StringVar(&f.levels, "concurrency", "1,4", "closed-loop levels, comma-separated; each sends both endpoints' requests")
	fs.IntVar(&f.warmup, "warmup", 2, "requests to each endpoint before a level's first run, not measured")
	fs.IntVar(&f.maxTokens, "max-tokens", 64, "cap on each answer")
	fs.StringVar(&f.out, "out", "results", "directory the samples are written to (ab-<UTC timestamp>.samples.jsonl)")
	fs.Uint64Var(&f.seed, "seed", uint64(time.Now().UnixNano()), "seed of the order within each pair")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), abUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, parseFailed(err)
	}
	var err error
	f.pacers, err = parseLevels(f.levels)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "llmsla ab: -concurrency: %v\n", err)
	case fs.NArg() != 2:
		fs.Usage()
	case f.n < 1 || f.count < 2 || f.warmup < 0:
		fmt.Fprintf(stderr, "llmsla ab: -n %d, -count %d, -warmup %d: want -n ≥ 1, -count ≥ 2 and -warmup ≥ 0\n", f.n, f.count, f.warmup)
	default:
		f.endpoints = fs.Args()
		return f, 0
	}
	return nil, 2
}

// loadCases reads the fixture, relative to the module root, and names the
// scenario after it unless -scenario did.
func (f *abRun) loadCases() ([]quality.Case, error) {
	path := f.fixture
	if root, err := config.ModuleRoot(); err == nil && !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	if f.scenario == "" {
		f.scenario = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return quality.LoadCases(path)
}

// abArms finds the two endpoints in cfg, serving a simulated one
// in-process, and returns their arms, how to print them, and what stops
// the simulators (to be called whatever the error).
func abArms(cfg *config.Config, endpoints []string, cases []quality.Case, sec *secret.Set) (arms [2]load.Arm, names []string, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	for i, name := range endpoints {
		j := slices.IndexFunc(cfg.Endpoints, func(e stream.Endpoint) bool { return e.Name == name })
		if j < 0 {
			return arms, nil, stop, fmt.Errorf("endpoint %q is not in %s (have: %s)", name, cfg.Source, strings.Join(cfg.EndpointNames(), ", "))
		}
		ep := cfg.Endpoints[j]
		if ep.Simulated {
			s, err := serveSim(cfg, &ep, cases)
			if err != nil {
				return arms, nil, stop, err
			}
			stops = append(stops, s)
		}
		arms[i] = load.Arm{Name: ep.Name, Doer: stream.NewClient(ep, stream.Secrets(sec))}
		names = append(names, ep.String())
	}
	return arms, names, stop, nil
}

// record sends the interleaved run, writing every sample to
// <out>/ab-<UTC timestamp>.samples.jsonl as it completes, and returns each
// arm's samples.
func (f *abRun) record(arms [2]load.Arm, cases []quality.Case, sec *secret.Set, stdout io.Writer) (base, cand []sample.Sample, err error) {
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return nil, nil, err
	}
	path := filepath.Join(f.out, "ab-"+time.Now().UTC().Format("20060102T150405Z")+".samples.jsonl")
	sink, err := sample.Create(path, sec.RedactBytes)
	if err != nil {
		return nil, nil, err
	}
	defer sink.Close()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	base, cand, err = load.Interleave(ctx, arms[0], arms[1], load.InterleaveOptions{
		Scenario: f.scenario, Cases: cases, Fixture: load.FixtureOptions{System: f.system, Structured: f.structured},
		Levels: f.pacers, Runs: f.count, N: f.n, Warmup: f.warmup, MaxTokens: f.maxTokens, Seed: f.seed, Sink: sink.Write,
	})
	if err == nil {
		err = sink.Err()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%v; %s holds the samples so far", err, path)
	}
	fmt.Fprintf(stdout, "recorded %s\n\n", path)
	return base, cand, nil
}

// parseLevels reads "1,4" as closed-loop pacers.
func parseLevels(s string) ([]load.Pacer, error) {
	var out []load.Pacer
	for _, f := range strings.Split(s, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 {
			return nil, fmt.Errorf("%q is not a concurrency ≥ 1", f)
		}
		out = append(out, load.Closed(c))
	}
	return out, nil
}

// serveSim starts the simulator of a simulated endpoint, answering each
// case right (or wrong, at its spec's rate) as the harness's simulator
// does, and points ep at it.
func serveSim(cfg *config.Config, ep *stream.Endpoint, cases []quality.Case) (stop func(), err error) {
	sc, err := cfg.Sim(ep.Name)
	if err != nil {
		return nil, err
	}
	var answers sim.Answers
	for _, c := range cases {
		msgs := c.Render()
		answers.Add(msgs[len(msgs)-1].Content, c.Answer, c.WrongAnswer)
	}
	answers.Hook(&sc)
	srv := httptest.NewServer(sim.New(sc))
	ep.BaseURL = srv.URL + "/v1"
	return srv.Close, nil
}
