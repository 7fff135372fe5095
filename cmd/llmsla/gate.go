package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/verdict"
)

// runGate compares NEW against BASE and exits 0 on pass, 1 on a
// regression, 2 when the input cannot be judged or a latency could not be
// seen, so CI can tell a slower candidate from a broken or blind
// benchmark run. Alpha and tolerances default to the gate: section of the
// SLA file NEW was measured under; flags override them.
func runGate(args []string, stdout, stderr io.Writer) (code int) {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts gate.Options
	configure := decisionFlags(fs, &opts)
	fs.StringVar(&opts.Filter, "filter", "*", "use only benchmarks matching benchfilter `query`; the others need not be in NEW")
	fs.BoolVar(&opts.AllowMissing, "allow-missing", false, "let benchmarks of BASE missing from NEW, and figures that vanished, pass with a warning")
	fs.BoolVar(&opts.MatchProcs, "match-procs", false, "keep the -N GOMAXPROCS suffix in benchmark names (by default ignored, with a warning when BASE and NEW differ)")
	fs.BoolVar(&opts.RunsOnly, "runs-only", false, "judge every figure over runs, ignoring the samples files")
	fs.Func("allow-change", "let the defining provenance key `kind` (model.digest, model.id, server.version, fixture, temperature, cache, …) differ between BASE and NEW, the report starting with what changed; repeatable; without it such a difference is exit 2", func(s string) error {
		opts.AllowChange = append(opts.AllowChange, s) // checked by the gate, with the keys
		return nil
	})
	ci := ciFlags(fs)
	var logs []string
	fs.Func("log", "a `file` of production's request logs (repeatable): BASE and NEW may then be windows of it (their start, e.g. 2026-11-30T10:00Z) or a recorded run", func(p string) error {
		logs = append(logs, p)
		return nil
	})
	window := fs.Duration("window", 0, "with -log, the `length` of a window (default logs.window of the SLA file, else 1h)")
	plan := fs.String("plan", "", "instead of gating, tell how many requests a side BASE's recording needs for the gate to flag a change of `unit=10%` (relative) or unit=2 (absolute: points for *-%)")
	file := configFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), gateUsage)
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() != 2 && (*plan == "" || fs.NArg() != 1) {
		fs.Usage()
		return exitBroken
	}
	if *plan == "" { // a plan gates nothing
		stderr = ci.Start("gate", stdout, stderr)
		defer func() { code = ci.Finish(code) }()
	}
	// The SLA file NEW was measured under (a log's window: the shell's);
	// it sends nothing, so it reads no key and selects no endpoint.
	side := fs.Arg(fs.NArg() - 1)
	var recorded []string
	if _, err := os.Stat(side); err == nil {
		recorded = []string{side}
	}
	cfg, note, err := verdict.Against(*file, verdict.SLAFile, recorded...)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return exitBroken
	}
	if note != "" {
		fmt.Fprintf(stderr, "llmsla gate: note: %s\n", note)
	}
	configure(cfg)
	if *plan != "" {
		return runPlan(*plan, fs.Arg(0), opts, stdout, stderr)
	}
	gated := func() (*gate.Report, error) { return verdict.Gate(fs.Arg(0), fs.Arg(1), opts) }
	if len(logs) > 0 {
		gated = func() (*gate.Report, error) {
			w, err := verdict.Window(cfg, *window, isSet(fs, "window"))
			if err != nil {
				return nil, err
			}
			return verdict.GateLog(cfg, logs, w, fs.Arg(0), fs.Arg(1), opts)
		}
	}
	rep, err := gated()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return exitBroken
	}
	ci.Gated(rep)
	return writeVerdict("gate", rep, stdout, stderr)
}

const gateUsage = `usage: llmsla gate [flags] BASE NEW
       llmsla gate -plan ttft-p95-ms=10% BASE

Fails (exit 1) when a figure in NEW is significantly worse than in BASE,
after Holm–Bonferroni within its family, and beyond its tolerance
(defaults: 10% and 1 ms for *-ms units, 20% for *-p99-ms, 10% for */s, 1
point for *-% units, then the gate: section of the SLA file NEW was
measured under, or -config's, then -tolerance). Latency percentiles and
quality proportions are judged on the requests in X.samples.jsonl beside
each X.txt when both have one; other figures, and all of them without
samples, over runs. The report says what each family covers and what
change it can see. Each side's X.txt must record what its samples file
records (model, digest, fixture, parameters); flags may come before or
after the files.

BASE or NEW may be a directory: the results of a run's shards (each
shard's directory, or one holding them all), pooled into one run; every
figure is then judged on their requests, a missing shard is exit 2.

With -log FILE (production's request logs, read as llmsla verdict -log
reads them), BASE and NEW may be windows of the log, named by their start
as the verdict table shows it (2026-11-30T10:00Z, -window long), or one of
them a recorded run of one level, matched by the model its endpoint served.

Exit 2 means the files cannot be compared — a file missing, cut short or
corrupt (named as file:line), a benchmark of BASE missing from NEW, a
side's two files disagreeing — or the SLA file is broken; the message
says why and what to do. It also means BLIND: nothing regressed, but a
latency percentile could not be seen at these sample sizes (no change of
it, however large, would be flagged); record more requests, or
-allow-blind the unit.

`

// writeVerdict writes rep and returns the exit code of its verdict: 0
// PASS, 1 FAIL, 2 BLIND (a latency asked for could not be seen).
func writeVerdict(cmd string, rep *gate.Report, stdout, stderr io.Writer) int {
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "llmsla %s: %v\n", cmd, err)
		return exitBroken
	}
	switch rep.Verdict() {
	case gate.Fail:
		return exitViolated
	case gate.Blind:
		fmt.Fprintf(stderr, "llmsla %s: BLIND: %s: not a pass (exit 2); record more requests or runs (-n, -count), or -allow-blind UNIT for a latency you do not need judged\n", cmd, report.Plural(len(rep.Blind), "latency percentile could not be judged", "latency percentiles could not be judged"))
		return exitBroken
	}
	return exitOK
}

// decisionFlags declares on fs the flags of the decision, -alpha,
// -tolerance and -allow-blind, and returns what, once fs is parsed, puts
// them over the SLA file's gate: section into opts (verdict.Decide).
func decisionFlags(fs *flag.FlagSet, opts *gate.Options) (configure func(cfg *config.Config)) {
	flagTol := map[string]gate.Tolerance{}
	fs.Func("alpha", "family-wise significance `level` of every family, or family=level for one (latency, quality, runs); repeatable; default gate.alpha of the SLA file, else latency=0.05 quality=0.005 runs=0.025", func(s string) error {
		return parseAlpha(s, opts)
	})
	fs.Func("tolerance", "per-unit tolerance `unit=10%` (relative) or `unit=1` (absolute); unit may be a glob; repeatable; overrides gate.tolerance of the SLA file for that unit", func(s string) error {
		unit, t, err := gate.ParseTolerance(s)
		if err == nil {
			flagTol[unit] = t
		}
		return err
	})
	fs.Func("allow-blind", "let latency `unit` (or glob, e.g. '*-p99-ms') pass when no change of it could be seen at these sample sizes, named in the headline; repeatable; without it a blind latency is exit 2", func(s string) error {
		opts.AllowBlind = append(opts.AllowBlind, s) // checked by the gate, with the units
		return nil
	})
	return func(cfg *config.Config) { verdict.Decide(opts, cfg, flagTol) }
}

// parseAlpha reads one -alpha: a level for every family, or family=level.
func parseAlpha(s string, opts *gate.Options) error {
	family, val, one := strings.Cut(s, "=")
	if !one {
		val = s
	}
	a, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number: want a level such as 0.05, or family=level (latency, quality, runs)", val)
	}
	// 0 is checked here: in Options it means "the default".
	if err := gate.CheckAlpha(a); err != nil {
		return err
	}
	if !one {
		opts.Alpha = a
		return nil
	}
	if opts.FamilyAlpha == nil {
		opts.FamilyAlpha = map[string]float64{}
	}
	opts.FamilyAlpha[family] = a
	return nil
}

// runPlan answers -plan: how many requests a side BASE's recording needs
// for the gate to flag the change.
func runPlan(spec, base string, opts gate.Options, stdout, stderr io.Writer) int {
	unit, change, err := gate.ParseTolerance(spec)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla gate: -plan: %v\n", strings.Replace(err.Error(), "tolerance", "change", 1))
		return exitBroken
	}
	lines, err := gate.Plan(recording.File(base), unit, change, opts)
	if err == nil {
		err = gate.WritePlan(stdout, lines, fmt.Sprintf("%s %s", unit, change))
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return exitBroken
	}
	return exitOK
}
