package main

import (
	"flag"
	"fmt"
	"io"
	"os"

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
	fs := newFlags("gate", usageOf("gate"), stderr)
	var opts gate.Options
	configure := decisionFlags(fs, &opts)
	fs.StringVar(&opts.Filter, "filter", "*", "use only benchmarks matching benchfilter `query`; the others need not be in NEW")
	fs.BoolVar(&opts.AllowMissing, "allow-missing", false, "let benchmarks of BASE missing from NEW, and figures that vanished, pass with a warning")
	fs.BoolVar(&opts.MatchProcs, "match-procs", false, "keep the -N GOMAXPROCS suffix in benchmark names (by default ignored, with a warning when BASE and NEW differ)")
	fs.BoolVar(&opts.RunsOnly, "runs-only", false, "judge every figure over runs, ignoring the samples files")
	fs.BoolVar(&opts.AllowBusy, "allow-busy", false, "compare a side whose client could not keep time, or two sides whose clients differ, saying so; without it either is exit 2 naming the side and the figure")
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
		return broken(stderr, "llmsla gate", err)
	}
	if note != "" {
		fmt.Fprintf(stderr, "llmsla gate: note: %s\n", note)
	}
	configure(cfg)
	if *plan != "" {
		if err := gate.PlanFor(*plan, recording.File(fs.Arg(0)), opts, stdout); err != nil {
			return broken(stderr, "llmsla gate", err)
		}
		return exitOK
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
		return broken(stderr, "llmsla gate", err)
	}
	ci.Gated(rep)
	return writeVerdict("gate", rep, stdout, stderr)
}

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
		return gate.ParseAlpha(s, opts)
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
