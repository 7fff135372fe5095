package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/progress"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/session"
)

// benchOptions are llmsla bench's flags.
type benchOptions struct {
	g       session.GoTest
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
	fs.IntVar(&o.g.Count, "count", 10, "runs of each benchmark (the gate needs ≥ 10 for the suites' number of comparisons)")
	fs.IntVar(&o.g.N, "n", 20, "requests per benchmark run (go test -benchtime Nx)")
	fs.StringVar(&o.g.Bench, "bench", ".", "benchmarks to run (go test -bench)")
	fs.StringVar(&o.g.Pkg, "pkg", "./suites/...", "package of the scenarios")
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
	if o.g.Count < 1 || o.g.N < 2 || fs.NArg() > 0 || o.keep < 0 {
		// -n 1 would measure nothing: go test's first call of a benchmark,
		// b.N = 1, is its probe, which the harness counts as warm-up.
		fmt.Fprintf(stderr, "llmsla bench: -count %d, -n %d, -keep %d, extra arguments %q: want -count ≥ 1 (≥ 10 for the gate), -n ≥ 2 (-n 1 is go test's probe alone, which measures nothing), -keep ≥ 0 and no arguments\n",
			o.g.Count, o.g.N, o.keep, fs.Args())
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
	run.PerRun = o.g.N
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
	b, code := prepare(cfg, run, o, stdout, stderr)
	if b == nil {
		return code
	}
	if o.dryRun {
		if b.Probes == 0 {
			fmt.Fprintln(stdout, "dry run: nothing was sent")
		} else {
			fmt.Fprintf(stdout, "dry run: nothing was measured (%s of one token asked the endpoints what the scenarios need)\n", plural(b.Probes, "capability probe", "capability probes"))
		}
		return exitOK
	}
	ctx, stop := interrupts()
	defer stop()
	code = o.measure(ctx, cfg, b, run, sec, stdout, stderr, rawStderr, terminal)
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

// prepare checks everything that can be checked before a request
// (session.PrepareBench) and prints the plan. It returns the bench, or
// nil and the exit code.
func prepare(cfg *config.Config, run session.Run, o *benchOptions, stdout, stderr io.Writer) (*session.Bench, int) {
	b, err := session.PrepareBench(cfg, run, o.g, o.dryRun, o.keepGoing)
	for _, note := range b.Notes {
		fmt.Fprintln(stdout, "note: "+note)
	}
	if b.PreflightWarn != nil {
		fmt.Fprintf(stderr, "llmsla: warning: preflight:\n%v\nmeasuring anyway\n", b.PreflightWarn)
	}
	if b.Preflight != nil && err == nil {
		fmt.Fprintf(stderr, "llmsla: preflight:\n%v\n-keep-going: measuring anyway\n", b.Preflight)
	}
	if b.Plan != nil {
		writePlan(stdout, b.Plan)
	}
	for _, u := range b.Unserved {
		fmt.Fprintln(stdout, "  "+u.String())
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return nil, exitBroken
	}
	return b, exitOK
}

// measure runs go test on the bench, records its output and samples,
// judges them and, when the run can be judged, makes it results/latest.*.
func (o *benchOptions) measure(ctx context.Context, cfg *config.Config, b *session.Bench, run session.Run, sec *secret.Set, stdout, stderr, rawStderr io.Writer, terminal bool) int {
	// The test binary runs in the package's directory: give it absolute paths.
	if abs, err := filepath.Abs(o.out); err == nil {
		o.out = abs
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
	}
	shard := run.Shard
	rec := recording.NewRun(o.out, recording.KindBench, time.Now(), shard.I, shard.N)
	header := recording.Header{Commit: session.Commit(), Date: time.Now(), Config: cfg.Source, Count: o.g.Count, Provenance: b.Provenance}
	if shard.On() {
		header.Shard = shard.String()
	}
	// What was measured, as configuration lines (benchstat shows them, the
	// gate compares them) and as the samples file's first line (verdicts
	// and reports show it).
	if err := sample.CreateWithProvenance(rec.Samples(), b.Provenance, sec.RedactBytes); err != nil {
		fmt.Fprintf(stderr, "llmsla: samples file: %v\n", err)
		return exitBroken
	}
	child := session.Child{Samples: rec.Samples(), Server: rec.Server(), Run: run, Skip: b.Skip(),
		Stop: filepath.Join(os.TempDir(), fmt.Sprintf("llmsla-stop-%s-%d.json", rec.Name, os.Getpid()))}
	defer os.Remove(child.Stop)
	if cfg.Judge != nil {
		child.JudgeSamples = rec.Judge()
	}
	testOut, testErrOut, stopProgress := stdout, stderr, func() {}
	if !o.quiet {
		// Progress comes through a file of its own: go test's output is
		// the benchfmt record, and stderr is ours.
		child.Progress = filepath.Join(os.TempDir(), fmt.Sprintf("llmsla-progress-%s-%d.jsonl", rec.Name, os.Getpid()))
		show := progress.Start(child.Progress, rawStderr, sec, terminal, progressPlan(b.Plan))
		testOut, testErrOut, stopProgress = show.Over(stdout), show.Over(stderr), show.Close
	}
	testErr := o.g.Record(ctx, rec.Txt(), header.Bytes(), child, sec, o.verbose, testOut, testErrOut)
	stopProgress()
	if testErr != nil {
		testErr = why(ctx, testErr)
	}
	if stop, err := session.ReadStop(child.Stop); err != nil || stop != nil {
		testErr = stopped(stop, err)
	}
	code := o.judge(cfg, run, rec, testErr, stdout, stderr)
	for _, u := range b.Unserved {
		fmt.Fprintln(stdout, u.String())
	}
	judgeLines(cfg, rec.Samples(), child.JudgeSamples, stdout)
	return code
}

// stopped is the error of a run the session stopped, as one line.
func stopped(stop *session.StopRecord, err error) error {
	if err != nil {
		return fmt.Errorf("the run stopped, and why cannot be read: %w", err)
	}
	return fmt.Errorf("stopped (%s): %s", stop.Why, stop.Message)
}

// judge prints the verdicts of a finished (or interrupted) run and makes
// it results/latest.* when it can be judged and finished; a run that did
// not finish is kept as a partial run (recording.Run.MarkPartial), which
// no reader of whole runs takes for one.
func (o *benchOptions) judge(cfg *config.Config, run session.Run, rec recording.Run, testErr error, stdout, stderr io.Writer) int {
	latest := recording.Latest(o.out)
	if _, err := os.Stat(rec.Samples()); err != nil {
		// go test may pass without sending anything.
		fmt.Fprintf(stdout, "\nrecorded %s; no samples were recorded\n", rec.Txt())
		fmt.Fprintf(stderr, "llmsla: no samples were recorded (go test: %v); %s and its samples are unchanged\n", testErr, latest.Txt())
		return exitBroken
	}
	if testErr == nil {
		fmt.Fprintf(stdout, "\nrecorded %s and %s\n\n", rec.Txt(), rec.Samples())
	}
	code := judgeRun(cfg, rec.Samples(), stdout, stderr, verdictOptions{shard: run.Shard, partial: testErr != nil, unfinished: testErr != nil, summary: rec.Summary(), ci: o.ci})
	breakdownLines(stdout, rec.Txt())
	// latest.* are what `make gate` and `make baseline` read: a run missing
	// benchmarks, or one that cannot be judged, must not become them, or
	// the gate would pass with a warning about what it did not compare.
	switch {
	case testErr != nil:
		kept, err := rec.MarkPartial()
		if err != nil {
			fmt.Fprintf(stderr, "llmsla: %v\n", err)
		}
		fmt.Fprintf(stderr, "llmsla: %v\nllmsla: the run did not finish: what it measured is in %s (a partial run); %s and its samples are unchanged\n",
			testErr, kept.Txt(), latest.Txt())
		return exitBroken
	case code == exitBroken:
		fmt.Fprintf(stderr, "llmsla: the run cannot be judged (above); %s and its samples are unchanged\n", latest.Txt())
		return exitBroken
	case !o.latest:
		return code
	}
	if err := rec.Promote(); err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
	}
	if err := recording.Retain(o.out, o.keep); err != nil {
		fmt.Fprintf(stderr, "llmsla: keeping %d runs in %s: %v\n", o.keep, o.out, err)
	}
	return code
}
