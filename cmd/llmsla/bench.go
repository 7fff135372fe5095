package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/gate/gateci"
	"github.com/llmsla/llmsla/harness/progress"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/verdict"
)

// benchOptions are llmsla bench's flags.
type benchOptions struct {
	g           session.GoTest
	out         string
	latest      bool
	quiet       bool
	verbose     bool
	dryRun      bool
	keep        int
	allowChange bool
	allowBusy   bool // judge levels whose client was client-bound
	ci          *gateci.Outputs
	runFlags
}

func benchFlags(stderr io.Writer) (*flag.FlagSet, *benchOptions) {
	o := &benchOptions{}
	fs := newFlags("bench", "", stderr)
	fs.IntVar(&o.g.Count, "count", 10, "runs of each benchmark (the gate needs ≥ 10 for the suites' number of comparisons)")
	fs.IntVar(&o.g.N, "n", 20, "requests per benchmark run (go test -benchtime Nx)")
	fs.StringVar(&o.g.Bench, "bench", ".", "benchmarks to run (go test -bench)")
	fs.StringVar(&o.g.Pkg, "pkg", "./suites/...", "package of the scenarios")
	fs.StringVar(&o.out, "out", "results", "the `directory` of recorded runs")
	misnamed(fs, "o", useOut)
	fs.BoolVar(&o.latest, "latest", true, "make this run results/latest.* (what make gate and make baseline read)")
	fs.IntVar(&o.keep, "keep", 20, "recorded runs kept in -out (oldest removed first; latest.* and baselines are never touched; 0 keeps all)")
	fs.BoolVar(&o.quiet, "q", false, "no progress lines on stderr")
	fs.BoolVar(&o.verbose, "v", false, "show go test's benchmark lines too (they are always in the results file)")
	fs.BoolVar(&o.allowChange, "allow-change", false, allowChange)
	fs.BoolVar(&o.allowBusy, "allow-busy", false, "judge levels whose client could not keep time (client-bound), saying so on each, instead of exit 2")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the plan and check the configuration, send nothing")
	o.runFlags.register(fs)
	o.ci = ciFlags(fs)
	return fs, o
}

// runBench checks the configuration, the endpoints and the plan, runs the
// suites' benchmarks -count times (-against: look by look), records them
// (results/<UTC timestamp>.txt, its samples beside, latest.*) and prints
// the SLA verdicts of those samples (-against: and the gate's).
func runBench(args []string, stdout, stderr io.Writer) (code int) {
	fs, o := benchFlags(stderr)
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	stderr = o.ci.Start("bench", stdout, stderr)
	defer func() { code = o.ci.Finish(code) }()
	if err := o.g.Check(); err != nil {
		return broken(stderr, "llmsla bench", err)
	}
	if fs.NArg() > 0 || o.keep < 0 {
		fmt.Fprintf(stderr, "llmsla bench: -keep %d, extra arguments %q: want -keep ≥ 0 and no arguments\n", o.keep, fs.Args())
		return exitBroken
	}
	run, err := o.run(fs)
	if err != nil {
		return broken(stderr, "llmsla bench", err)
	}
	cfg, err := config.Load()
	if err != nil {
		return broken(stderr, "llmsla", err)
	}
	run = run.Within(cfg.Budget)
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
			fmt.Fprintf(stdout, "dry run: nothing was measured (%s of one token asked the endpoints what the scenarios need)\n", report.Plural(b.Probes, "capability probe", "capability probes"))
		}
		return exitOK
	}
	ctx, stop := interrupts()
	defer stop()
	code = o.measure(ctx, cfg, b, run, sec, stdout, stderr, rawStderr, terminal)
	fmt.Fprintf(stdout, "\nllmsla bench: %s\n", exitWords(code))
	return code
}

// prepare checks everything that can be checked before a request
// (session.PrepareBench) and prints the plan. It returns the bench, or
// nil and the exit code.
func prepare(cfg *config.Config, run session.Run, o *benchOptions, stdout, stderr io.Writer) (*session.Bench, int) {
	b, err := session.PrepareBench(cfg, run, o.g, o.dryRun, o.KeepGoing)
	for _, note := range b.Notes {
		fmt.Fprintln(stdout, "note: "+note)
	}
	if b.PreflightWarn != nil {
		fmt.Fprintf(stderr, "llmsla: warning: preflight:\n%v\nmeasuring anyway\n", b.PreflightWarn)
	}
	if b.Preflight != nil && err == nil {
		fmt.Fprintf(stderr, "llmsla: preflight:\n%v\n-keep-going: measuring anyway\n", b.Preflight)
	}
	b.WritePlan(stdout)
	for _, u := range b.Unserved {
		fmt.Fprintln(stdout, "  "+u.String())
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return nil, exitBroken
	}
	return b, exitOK
}

// measure runs go test on the bench (session.Bench.Record), judges what
// it recorded and files the run: latest.* when it finished and can be
// judged, a partial run when it did not.
func (o *benchOptions) measure(ctx context.Context, cfg *config.Config, b *session.Bench, run session.Run, sec *secret.Set, stdout, stderr, rawStderr io.Writer, terminal bool) int {
	r := session.Recorder{Dir: o.out, Latest: o.latest, Keep: o.keep, Verbose: o.verbose}
	if !o.quiet {
		r.Progress = func(path string) (io.Writer, io.Writer, func()) {
			show := progress.Start(path, rawStderr, sec, terminal, b.Plan.Progress())
			return show.Over(stdout), show.Over(stderr), show.Close
		}
	}
	opts := gate.Options{AllowBusy: o.allowBusy} // the sequential gate's, with -against
	verdict.Decide(&opts, cfg, nil)
	rec, looked, runErr := b.RecordAgainst(ctx, cfg, run, o.g, sec, r, opts, stdout, stderr)
	if errors.Is(runErr, session.ErrNoSamples) || rec.Name == "" {
		fmt.Fprintf(stderr, "llmsla: %v; %s and its samples are unchanged\n", runErr, recording.Latest(o.out).Txt())
		return exitBroken
	}
	if runErr == nil {
		fmt.Fprintf(stdout, "\nrecorded %s and %s\n\n", rec.Txt(), rec.Samples())
	}
	code := judgeRun(cfg, rec.Samples(), stdout, stderr, verdictOptions{Options: verdict.Options{Shard: run.Shard, Partial: runErr != nil, AllowChange: o.allowChange}, unfinished: runErr != nil, summary: rec.Summary(), ci: o.ci, allowBusy: o.allowBusy})
	verdict.WriteBreakdowns(stdout, rec.Txt())
	for _, u := range b.Unserved {
		fmt.Fprintln(stdout, u.String())
	}
	judgeLines(cfg, rec.Samples(), rec.Judge(), stdout)
	_, why, err := r.File(rec, runErr, code != exitBroken)
	if runErr != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", runErr)
	}
	if why != "" {
		fmt.Fprintf(stderr, "llmsla: %s\n", why)
	}
	if err != nil {
		return broken(stderr, "llmsla", err)
	}
	if runErr != nil {
		return exitBroken
	}
	if b.Against != "" && looked.Err != nil {
		return broken(stderr, "llmsla bench -against", looked.Err)
	} else if b.Against != "" {
		code = max(code, writeVerdict("bench", looked.Seq.Report, stdout, stderr))
		fmt.Fprintln(stdout, looked.Summary())
	}
	return code
}
