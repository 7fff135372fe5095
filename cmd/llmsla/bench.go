package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/session"
)

// benchOptions are llmsla bench's flags.
type benchOptions struct {
	g       goTest
	out     string
	latest  bool
	quiet   bool
	verbose bool
	dryRun  bool
	keep    int
	ci      *ciOutputs
	runFlags
}

func benchFlags(stderr io.Writer) (*flag.FlagSet, *benchOptions) {
	o := &benchOptions{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// 10 runs, as in the Makefile: the gate corrects for every (benchmark,
	// unit) it compares, and the suites give it about 80. With 6 runs a
	// side Mann-Whitney's smallest p (0.0022) clears Holm's first step only
	// for up to 23 comparisons, so the gate would refuse; with 10 (p ≈ 1e-5)
	// it can flag a change among thousands.
	fs.IntVar(&o.g.count, "count", 10, "runs of each benchmark (the gate needs ≥ 10 for the suites' number of comparisons)")
	fs.IntVar(&o.g.n, "n", 20, "requests per benchmark run (go test -benchtime Nx)")
	fs.StringVar(&o.g.bench, "bench", ".", "benchmarks to run (go test -bench)")
	fs.StringVar(&o.g.pkg, "pkg", "./suites/...", "package of the scenarios")
	fs.StringVar(&o.out, "out", "results", "directory of recorded runs")
	fs.BoolVar(&o.latest, "latest", true, "make this run results/latest.* (what make gate and make baseline read)")
	fs.IntVar(&o.keep, "keep", 20, "recorded runs kept in -out (oldest removed first; latest.* and baselines are never touched; 0 keeps all)")
	fs.BoolVar(&o.quiet, "q", false, "no progress lines on stderr")
	fs.BoolVar(&o.verbose, "v", false, "show go test's benchmark lines too (they are always in the results file)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the plan and check the configuration, send nothing")
	o.runFlags.register(fs)
	o.ci = ciFlags(fs)
	return fs, o
}

// runBench runs the suites' benchmarks -count times, records the output in
// benchfmt (results/<UTC timestamp>.txt, results/latest.txt) and every
// request as JSONL beside it, then prints the SLA verdicts computed from
// those samples. Before the first request it checks the whole
// configuration against what the suites define, checks every endpoint
// (preflight) and prints the plan: cells, requests, expected duration.
func runBench(args []string, stdout, stderr io.Writer) (code int) {
	fs, o := benchFlags(stderr)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	stderr = o.ci.start("bench", stdout, stderr)
	defer func() { code = o.ci.finish(code) }()
	if o.g.count < 1 || o.g.n < 2 || fs.NArg() > 0 || o.keep < 0 {
		// -n 1 would measure nothing: go test's first call of a benchmark,
		// b.N = 1, is its probe, which the harness counts as warm-up.
		fmt.Fprintf(stderr, "llmsla bench: -count %d, -n %d, -keep %d, extra arguments %q: want -count ≥ 1 (≥ 10 for the gate), -n ≥ 2 (-n 1 is go test's probe alone, which measures nothing), -keep ≥ 0 and no arguments\n",
			o.g.count, o.g.n, o.keep, fs.Args())
		return exitBroken
	}
	run, err := o.run(fs)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla bench: %v\n", err)
		return exitBroken
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
	}
	run = withBudget(run, cfg.Budget)
	if run.LatencyOnly {
		cfg.LatencyOnly()
	}
	// Everything printed or recorded from here on passes a redactor: the
	// samples come redacted from the client, and this is the second line
	// for the rest of go test's output and the results file.
	terminal := isTerminal(stderr) // before the redactor wraps it
	rawStderr := stderr            // for the progress line, redacted line by line
	stdout, stderr, sec, flush := redacting(cfg, stdout, stderr)
	defer flush()
	for _, line := range cfg.Describe() {
		fmt.Fprintln(stdout, line)
	}
	p, code := prepare(cfg, run, o, stdout, stderr)
	if p == nil {
		return code
	}
	if o.dryRun {
		fmt.Fprintln(stdout, "dry run: nothing was sent")
		return exitOK
	}
	code = o.measure(cfg, p, sec, stdout, stderr, rawStderr, terminal)
	fmt.Fprintf(stdout, "\nllmsla bench: %s\n", exitWords(code))
	return code
}

// withBudget is run with the SLA file's budget where no flag set one.
func withBudget(run session.Run, b config.Budget) session.Run {
	if run.MaxRequests == 0 {
		run.MaxRequests = b.MaxRequests
	}
	if run.MaxDuration == 0 {
		run.MaxDuration = b.MaxDuration
	}
	return run
}

// prepare checks everything that can be checked before a request — the
// SLA file against every scenario the suites define, each benched
// scenario's fixture, shard splits of every level, the budget — then
// (unless a dry run) every endpoint and one request of each scenario, and
// prints the plan. It returns the plan, or nil and the exit code.
func prepare(cfg *config.Config, run session.Run, o *benchOptions, stdout, stderr io.Writer) (*plan, int) {
	fail := func(err error) (*plan, int) {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return nil, exitBroken
	}
	defined, benched, err := o.g.plan()
	if err != nil {
		return fail(err)
	}
	if len(benched) == 0 {
		return fail(fmt.Errorf("-bench %q matches no benchmark in %s: nothing to measure", o.g.bench, o.g.pkg))
	}
	if err := cfg.CheckScenarios(names(defined)); err != nil {
		return fail(err)
	}
	scenarios := pick(defined, benched)
	for _, sc := range scenarios {
		if err := session.CheckShard(cfg, sc.Name, run.Shard); err != nil {
			return fail(err)
		}
	}
	s, err := session.New(cfg, run, session.Options{})
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	fixtures := map[string]*load.Fixture{}
	for _, sc := range scenarios {
		if fixtures[sc.Name], err = s.Source(sc); err != nil {
			return fail(err)
		}
		if note := s.JudgeNote(sc.Name); note != "" {
			fmt.Fprintln(stdout, "note: "+note)
		}
	}
	p := newPlan(cfg, run, o.g, scenarios, fixtures)
	if err := p.checkRequests(); err != nil {
		p.write(stdout)
		return fail(err)
	}
	if !o.dryRun {
		ctx := context.Background()
		warn, err := s.Preflight(ctx)
		if warn != nil {
			fmt.Fprintf(stderr, "llmsla: warning: preflight:\n%v\nmeasuring anyway\n", warn)
		}
		if err != nil && !o.keepGoing {
			return fail(fmt.Errorf("preflight, before any measured request (-keep-going sends the run anyway):\n%w", err))
		}
		if err != nil {
			fmt.Fprintf(stderr, "llmsla: preflight:\n%v\n-keep-going: measuring anyway\n", err)
		}
		if err := p.probe(ctx, s, fixtures); err != nil {
			return fail(err)
		}
		p.provenance = s.Provenance(ctx, scenarios)
		p.provenance.Set(gitCommit(), "client", "llmsla")
	}
	p.write(stdout)
	if err := p.checkDuration(); err != nil {
		return fail(err)
	}
	return p, exitOK
}

// measure runs go test on the plan, records its output and samples, judges
// them and, when the run can be judged, makes it results/latest.*.
func (o *benchOptions) measure(cfg *config.Config, p *plan, sec *secret.Set, stdout, stderr, rawStderr io.Writer, terminal bool) int {
	// The test binary runs in the package's directory: give it absolute paths.
	if abs, err := filepath.Abs(o.out); err == nil {
		o.out = abs
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	shard := p.run.Shard
	if shard.On() {
		// Shards may write to one volume: their files must not collide.
		stamp += fmt.Sprintf(".shard%dof%d", shard.I, shard.N)
	}
	txt := filepath.Join(o.out, stamp+".txt")
	samples := filepath.Join(o.out, stamp+".samples.jsonl")
	header := fmt.Sprintf("commit: %s\ndate: %s\nconfig: %s\ncount: %d\n", gitCommit(), stamp, cfg.Source, o.g.count)
	if shard.On() {
		header += fmt.Sprintf("shard: %s\n", shard)
	}
	// What was measured, as configuration lines (benchstat shows them, the
	// gate compares them) and as the samples file's first line (verdicts
	// and reports show it).
	header += p.provenance.Lines()
	if err := sample.CreateWithProvenance(samples, p.provenance, sec.RedactBytes); err != nil {
		fmt.Fprintf(stderr, "llmsla: samples file: %v\n", err)
		return exitBroken
	}
	child := session.Child{Samples: samples, Server: server.FileName(samples), Run: p.run}
	if cfg.Judge != nil {
		child.JudgeSamples = filepath.Join(o.out, stamp+".judge.jsonl")
	}
	testOut, testErrOut, stopProgress := stdout, stderr, func() {}
	if !o.quiet {
		// Progress comes through a file of its own: go test's output is
		// the benchfmt record, and stderr is ours.
		child.Progress = filepath.Join(os.TempDir(), fmt.Sprintf("llmsla-progress-%s-%d.jsonl", stamp, os.Getpid()))
		show := startProgress(child.Progress, rawStderr, sec, terminal, p.progressTotal())
		testOut, testErrOut, stopProgress = show.over(stdout), show.over(stderr), show.close
	}
	testErr := o.g.record(txt, header, child, sec, o.verbose, testOut, testErrOut)
	stopProgress()
	code := o.judge(cfg, p, txt, samples, testErr, stdout, stderr)
	judgeLines(cfg, samples, child.JudgeSamples, stdout)
	return code
}

// judge prints the verdicts of a finished (or interrupted) run and makes
// it results/latest.* when it can be judged and finished.
func (o *benchOptions) judge(cfg *config.Config, p *plan, txt, samples string, testErr error, stdout, stderr io.Writer) int {
	latestTxt := filepath.Join(o.out, "latest.txt")
	if _, err := os.Stat(samples); err != nil {
		// go test may pass without sending anything.
		fmt.Fprintf(stdout, "\nrecorded %s; no samples were recorded\n", txt)
		fmt.Fprintf(stderr, "llmsla: no samples were recorded (go test: %v); %s and its samples are unchanged\n", testErr, latestTxt)
		return exitBroken
	}
	fmt.Fprintf(stdout, "\nrecorded %s and %s\n\n", txt, samples)
	summary := strings.TrimSuffix(txt, ".txt") + ".summary.json"
	code := judgeRun(cfg, samples, stdout, stderr, verdictOptions{shard: p.run.Shard, partial: testErr != nil, unfinished: testErr != nil, summary: summary, ci: o.ci})
	breakdownLines(stdout, txt)
	// latest.* are what `make gate` and `make baseline` read: a run missing
	// benchmarks, or one that cannot be judged, must not become them, or
	// the gate would pass with a warning about what it did not compare.
	switch {
	case testErr != nil:
		fmt.Fprintf(stderr, "llmsla: go test: %v; %s holds the benchmarks that finished, %s and its samples are unchanged\n",
			testErr, txt, latestTxt)
		return exitBroken
	case code == exitBroken:
		fmt.Fprintf(stderr, "llmsla: the run cannot be judged (above); %s and its samples are unchanged\n", latestTxt)
		return exitBroken
	case !o.latest:
		return code
	}
	if err := promote(o.out, txt, samples, summary); err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
	}
	if err := retain(o.out, o.keep); err != nil {
		fmt.Fprintf(stderr, "llmsla: keeping %d runs in %s: %v\n", o.keep, o.out, err)
	}
	return code
}

// promote makes the run results/latest.*: the files are written to
// temporary files first, then renamed, the server's readings, the samples
// and the summary before the results (the gate and baseline find the
// samples beside latest.txt, llmsla verdict the server file beside the
// samples), so that a failure to write leaves the previous set whole. A
// run without a server file removes the last one's, which is not this
// run's.
func promote(dir, txt, samples, summary string) error {
	var copies []atomicfile.Copy
	latestServer := filepath.Join(dir, "latest.server.jsonl")
	if srv := server.FileName(samples); fileExists(srv) {
		copies = append(copies, atomicfile.Copy{From: srv, To: latestServer})
	} else if err := os.Remove(latestServer); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return atomicfile.Replace(append(copies,
		atomicfile.Copy{From: samples, To: filepath.Join(dir, "latest.samples.jsonl")},
		atomicfile.Copy{From: summary, To: filepath.Join(dir, "latest.summary.json")},
		atomicfile.Copy{From: txt, To: filepath.Join(dir, "latest.txt")})...)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func names(scs []session.Scenario) []string {
	out := make([]string, len(scs))
	for i, sc := range scs {
		out[i] = sc.Name
	}
	return out
}

// pick is the definitions of the benched scenarios, in their order.
func pick(defined []session.Scenario, benched []string) []session.Scenario {
	var out []session.Scenario
	for _, name := range benched {
		if i := slices.IndexFunc(defined, func(d session.Scenario) bool { return d.Name == name }); i >= 0 {
			out = append(out, defined[i])
		}
	}
	return out
}
