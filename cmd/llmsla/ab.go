package main

import (
	"fmt"
	"io"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/session"
)

// runAB sends a scenario's cases to two endpoints of the configuration,
// interleaved in the same time window, and gates the candidate against the
// base on the requests: 0 pass, 1 regression, 2 unusable (configuration,
// fixture, or no comparison possible) or blind (a latency an objective
// bounds that no change of would be seen with these requests).
func runAB(args []string, stdout, stderr io.Writer) int {
	f, code := parseAB(args, stderr)
	if f == nil {
		return code
	}
	cfg, err := config.Load()
	if err != nil {
		return broken(stderr, "llmsla ab", err)
	}
	f.configure(cfg) // the SLA file's gate: section and objectives, read once with the rest
	stdout, stderr, _, done := redacting(cfg, stdout, stderr)
	defer done()
	fail := func(err error) int { return broken(stderr, "llmsla ab", err) }
	suites, err := definitions(f.pkg)
	if err != nil {
		return fail(err)
	}
	sc, err := suites.Find("-scenario", f.scenario)
	if err != nil {
		return fail(err)
	}
	s, err := session.OpenInProcess(cfg, recording.KindAB, f.out, []session.Scenario{sc}, func(w error) {
		fmt.Fprintf(stderr, "llmsla ab: warning: preflight:\n%v\nsending anyway\n", w)
	})
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	fmt.Fprintf(stdout, "A/B: %s (base) vs %s (candidate), interleaved: %d runs of %d pairs at concurrency %s, scenario %s (%s) — config: %s\n",
		f.Base, f.Candidate, f.Runs, f.N, f.levels, sc.Name, sc.Fixture, cfg.Source)
	ctx, stop := interrupts()
	defer stop()
	base, cand, err := s.AB(ctx, sc, f.AB)
	if err == nil {
		err = s.Close()
	}
	if err != nil {
		kept := s.Abandon()
		return fail(fmt.Errorf("%v; %s holds the samples so far", why(ctx, err), kept.Samples()))
	}
	fmt.Fprintf(stdout, "recorded %s\n\n", s.Rec.Samples())
	f.opts.AcrossEndpoints = true // the two arms are two endpoints
	rep, err := gate.GateRequests(f.Base, f.Candidate, base, cand, f.opts)
	if err != nil {
		return fail(err)
	}
	return writeVerdict("ab", rep, stdout, stderr)
}

// abRun is what the flags of llmsla ab ask for.
type abRun struct {
	session.AB
	opts               gate.Options
	configure          func(*config.Config)
	scenario, pkg, out string
	levels             string
}

// parseAB reads the flags of llmsla ab; a nil run comes with the exit
// code.
func parseAB(args []string, stderr io.Writer) (*abRun, int) {
	fs := newFlags("ab", usageOf("ab"), stderr)
	f := &abRun{}
	f.configure = decisionFlags(fs, &f.opts)
	fs.StringVar(&f.scenario, "scenario", "chat", "the scenario whose cases to ask (one the suites define, a user's included)")
	fs.StringVar(&f.pkg, "pkg", "./suites/...", "package of the scenarios")
	fs.IntVar(&f.N, "n", 20, "requests to each endpoint per run")
	fs.IntVar(&f.Runs, "count", 5, "runs per level (≥ 2: drift between runs is measured from them)")
	fs.StringVar(&f.levels, "concurrency", "1,4", "closed-loop levels, comma-separated; each sends both endpoints' requests")
	fs.IntVar(&f.Warmup, "warmup", 2, "requests to each endpoint before a level's first run, not measured")
	fs.IntVar(&f.MaxTokens, "max-tokens", 0, "cap on each answer (default: the scenario's max_tokens on the base endpoint)")
	fs.StringVar(&f.out, "out", "results", "the `directory` the samples are written to (ab-<UTC timestamp>.samples.jsonl)")
	misnamed(fs, "o", useOut)
	fs.Uint64Var(&f.Seed, "seed", uint64(time.Now().UnixNano()), "seed of the order within each pair")
	if err := parse(fs, args); err != nil {
		return nil, parseFailed(err)
	}
	var err error
	f.Levels, err = load.ParseClosed(f.levels)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "llmsla ab: -concurrency: %v\n", err)
	case fs.NArg() != 2:
		fs.Usage()
	default:
		f.Base, f.Candidate = fs.Arg(0), fs.Arg(1)
		if err := f.Check(); err != nil {
			fmt.Fprintf(stderr, "llmsla ab: %v\n", err)
			return nil, exitBroken
		}
		return f, exitOK
	}
	return nil, exitBroken
}
