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
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// runAB sends a fixture's cases to two endpoints of the configuration,
// interleaved in the same time window, and gates the candidate against the
// base on the requests: 0 pass, 1 regression, 2 unusable (configuration,
// fixture, or no comparison possible).
func runAB(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts gate.Options
	configure := decisionFlags(fs, &opts)
	fixture := fs.String("fixture", "fixtures/classify.jsonl", "fixture cases to ask, relative to the module root")
	system := fs.String("system", "Answer with the label only.", "system prompt sent before each case")
	structured := fs.Bool("structured", false, "ask for structured output (response_format with the case's schema)")
	scenario := fs.String("scenario", "", "scenario name the samples are labelled with (default: the fixture's file name)")
	n := fs.Int("n", 20, "requests to each endpoint per run")
	count := fs.Int("count", 5, "runs per level (≥ 2: drift between runs is measured from them)")
	levels := fs.String("concurrency", "1,4", "closed-loop levels, comma-separated; each sends both endpoints' requests")
	warmup := fs.Int("warmup", 2, "requests to each endpoint before a level's first run, not measured")
	maxTokens := fs.Int("max-tokens", 64, "cap on each answer")
	out := fs.String("out", "results", "directory the samples are written to (ab-<UTC timestamp>.samples.jsonl)")
	seed := fs.Uint64("seed", uint64(time.Now().UnixNano()), "seed of the order within each pair")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: llmsla ab [flags] BASE_ENDPOINT CANDIDATE_ENDPOINT

Sends the fixture's cases to both endpoints of the configuration (sla.yaml,
or $LLMSLA_CONFIG) in the same time window: each case to both, in pairs
whose order is drawn at random, -count runs of -n pairs at each level.
Then gates the candidate against the base with the per-request tests of
llmsla gate: latency percentiles, and quality paired by case. No stored
baseline is needed, and whatever drifts (the machine, the network, a
shared server) drifts for both alike.

Exit codes as llmsla gate: 0 pass, 1 the candidate is worse, 2 unusable.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	pacers, err := parseLevels(*levels)
	if fs.NArg() != 2 || err != nil || *n < 1 || *count < 2 || *warmup < 0 {
		if err != nil {
			fmt.Fprintf(stderr, "llmsla ab: -concurrency: %v\n", err)
		} else if fs.NArg() == 2 {
			fmt.Fprintf(stderr, "llmsla ab: -n %d, -count %d, -warmup %d: want -n ≥ 1, -count ≥ 2 and -warmup ≥ 0\n", *n, *count, *warmup)
		} else {
			fs.Usage()
		}
		return 2
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	configure(cfg.Gate) // the SLA file's gate: section, read once with the rest
	stdout, stderr, sec, done := redacting(cfg, stdout, stderr)
	defer done()
	path := *fixture
	if root, err := config.ModuleRoot(); err == nil && !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	if *scenario == "" {
		*scenario = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	cases, err := quality.LoadCases(path)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	var arms [2]gate.Arm
	var names []string
	for i, name := range fs.Args() {
		j := slices.IndexFunc(cfg.Endpoints, func(e stream.Endpoint) bool { return e.Name == name })
		if j < 0 {
			fmt.Fprintf(stderr, "llmsla ab: endpoint %q is not in %s (have: %s)\n", name, cfg.Source, strings.Join(cfg.EndpointNames(), ", "))
			return 2
		}
		ep := cfg.Endpoints[j]
		if ep.Simulated {
			stop, err := serveSim(cfg, &ep, cases)
			if err != nil {
				fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
				return 2
			}
			defer stop()
		}
		arms[i] = gate.Arm{Name: ep.Name, Doer: stream.NewClient(ep, stream.Secrets(sec))}
		names = append(names, ep.String())
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	samplesPath := filepath.Join(*out, "ab-"+time.Now().UTC().Format("20060102T150405Z")+".samples.jsonl")
	sink, err := sample.Create(samplesPath, sec.RedactBytes)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	defer sink.Close()
	fmt.Fprintf(stdout, "A/B: %s (base) vs %s (candidate), interleaved: %d runs of %d pairs at concurrency %s, fixture %s — config: %s\n",
		names[0], names[1], *count, *n, *levels, *fixture, cfg.Source)
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	base, cand, err := gate.AB(ctx, arms[0], arms[1], gate.ABOptions{
		Scenario: *scenario, Cases: cases, Fixture: load.FixtureOptions{System: *system, Structured: *structured},
		Levels: pacers, Runs: *count, N: *n, Warmup: *warmup, MaxTokens: *maxTokens, Seed: *seed, Sink: sink.Write,
	})
	if err == nil {
		err = sink.Err()
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v; %s holds the samples so far\n", err, samplesPath)
		return 2
	}
	fmt.Fprintf(stdout, "recorded %s\n\n", samplesPath)
	opts.AcrossEndpoints = true // the two arms are two endpoints
	rep, err := gate.GateRequests(arms[0].Name, arms[1].Name, base, cand, opts)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
		return 2
	}
	if rep.Failed() {
		return 1
	}
	return 0
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
	session.Teach(&answers, cases)
	answers.Hook(&sc)
	srv := httptest.NewServer(sim.New(sc))
	ep.BaseURL = srv.URL + "/v1"
	return srv.Close, nil
}
