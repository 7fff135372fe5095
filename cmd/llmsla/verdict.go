package main

import (
	"fmt"
	"io"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate/gateci"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/verdict"
)

// runVerdict prints the SLA verdicts of recorded samples files.
func runVerdict(args []string, stdout, stderr io.Writer) (code int) {
	fs := newFlags("verdict", usageOf("verdict"), stderr)
	var opts verdictOptions
	opts.ci = ciFlags(fs)
	fs.BoolVar(&opts.allowBusy, "allow-busy", false, "judge a run whose client could not keep time (client-bound), saying so, instead of exit 2")
	fs.BoolVar(&opts.Partial, "partial", false, "judge files cut short (an interrupted run) on what finished, saying so, instead of refusing them")
	fs.BoolVar(&opts.AllowChange, "allow-change", false, allowChange)
	logs := fs.Bool("log", false, "the FILEs are production's request logs, one JSON object a request (the SLA file's logs: fields, by default the structlog names), judged per -window")
	window := fs.Duration("window", 0, "with -log, the `length` of each window judged (default logs.window of the SLA file, else 1h)")
	file := configFlag(fs)
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitBroken
	}
	stderr = opts.ci.Start("verdict", stdout, stderr)
	defer func() { code = opts.ci.Finish(code) }()
	var cfg *config.Config
	var note string
	var err error
	if *logs { // a log is no recorded run: the SLA file of the shell, or -config
		cfg, _, err = verdict.Against(*file, config.LoadWithoutKeys)
	} else {
		cfg, note, err = verdict.Against(*file, config.LoadWithoutKeys, fs.Args()...)
	}
	if err != nil {
		return broken(stderr, "llmsla", err)
	}
	// Samples come redacted; this is the second line for what they hold of
	// keys set in this environment.
	stdout, stderr, _, done := redacting(cfg, stdout, stderr)
	defer done()
	if note != "" {
		fmt.Fprintf(stderr, "llmsla: note: %s\n", note)
	}
	if !*logs {
		code, _ = judgeFiles(cfg, fs.Args(), stdout, stderr, opts)
		return code
	}
	w, err := verdict.Window(cfg, *window, isSet(fs, "window"))
	var r *verdict.Run
	if err == nil {
		r, err = verdict.LogRun(cfg, fs.Args(), w)
	}
	if err != nil {
		return broken(stderr, "llmsla", err)
	}
	return printVerdicts(cfg, r, stdout, stderr, opts)
}

// verdictOptions say what a verdict may take, and what it writes.
type verdictOptions struct {
	verdict.Options
	// unfinished: the run was interrupted or go test failed: what finished
	// is shown, and a verdict that would pass is not one.
	unfinished bool
	// summary, when set, is the file the verdicts are written to as JSON
	// (report.Summary).
	summary string
	// ci is told what was judged, for the JUnit file, step summary and
	// annotations (nil: none).
	ci *gateci.Outputs
	// allowBusy judges a run whose client was beyond its health limits.
	allowBusy bool
}

// judgeFiles prints the SLA table of samples files and directories
// (shards of one run merge: their samples are pooled; a missing shard is
// an error), returning 0 all met, 1 not, 2 unusable, and the run it
// judged (nil when it could not be read).
func judgeFiles(cfg *config.Config, paths []string, stdout, stderr io.Writer, opts verdictOptions) (int, *verdict.Run) {
	r, err := verdict.Load(cfg, paths, opts.Options)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken, nil
	}
	return printVerdicts(cfg, r, stdout, stderr, opts), r
}

// printVerdicts prints the run's SLA table, with warnings of what was cut
// short and its provenance above, writes its summary when opts ask for
// one, and returns the verdict's exit code.
func printVerdicts(cfg *config.Config, r *verdict.Run, stdout, stderr io.Writer, opts verdictOptions) int {
	for _, c := range append(r.Cut, r.Servers.Cut...) {
		fmt.Fprintf(stdout, "WARNING: %v: judged on the requests that finished\n", c)
	}
	vs, info := r.Verdicts(cfg), r.Info(cfg)
	share := ""
	if opts.Shard.On() {
		share = opts.Shard.String()
	}
	opts.ci.Judged(info, vs, share, secret.New(cfg.Secrets()...))
	report.Provenance(stdout, r.Provenance)
	report.Verdicts(stdout, vs)
	for _, d := range r.Doubts() {
		fmt.Fprintf(stdout, "WARNING: %s\n", d)
	}
	code := exitBroken // a client that could not keep time measured the machine: nothing is judged
	if busy := verdict.CheckClient(stdout, r.Paths, opts.allowBusy); busy == nil {
		code = [...]int{report.Met: exitOK, report.Violated: exitViolated, report.Unfinished: exitBroken}[report.Conclude(stdout, vs, share, opts.unfinished, r.Unjudged(opts.Options))]
	} else {
		fmt.Fprintf(stderr, "llmsla: %v\n", busy)
	}
	if opts.summary != "" {
		if err := verdict.WriteSummary(opts.summary, vs, info, code); err != nil {
			return broken(stderr, "llmsla: the run's summary", err)
		}
	}
	return code
}

// judgeRun prints what bench prints of the run's samples file: the
// verdicts and, unless this is a shard (its figures are its share of the
// run only), the leaderboard of the same samples — also when the file was
// cut short by an interrupt and judged on what finished — when the run
// measured two or more endpoints: the one thing a model selection needs
// to read first.
func judgeRun(cfg *config.Config, path string, stdout, stderr io.Writer, opts verdictOptions) int {
	opts.Steps = true // llmsla capacity's bench measures search steps
	code, r := judgeFiles(cfg, []string{path}, stdout, stderr, opts)
	if code == exitBroken || opts.Shard.On() {
		return code
	}
	if b := r.Board(cfg, report.PreferCost, ""); len(b.Endpoints) >= 2 {
		fmt.Fprintln(stdout)
		b.Text(stdout, true)
		fmt.Fprintf(stdout, "(per scenario, rankings and plots: llmsla report %s; -format markdown, json, csv, or html -o report.html)\n", path)
	}
	return code
}
