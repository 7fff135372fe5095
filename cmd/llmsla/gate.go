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
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/provenance"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// runGate compares NEW against BASE and exits 0 on pass, 1 on a
// regression, 2 when the input cannot be judged or a latency could not be
// seen, so CI can tell a slower candidate from a broken or blind
// benchmark run. Alpha and tolerances default to the gate: section of the
// SLA file; flags override them.
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
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), gateUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() != 2 && (*plan == "" || fs.NArg() != 1) {
		fs.Usage()
		return 2
	}
	if *plan == "" { // a plan gates nothing
		stderr = ci.start("gate", stdout, stderr)
		defer func() { code = ci.finish(code) }()
	}
	cfg, err := gateObjectives()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return 2
	}
	configure(cfg.Gate)
	opts.Objective = boundBy(cfg)
	if *plan != "" {
		return runPlan(*plan, fs.Arg(0), opts, stdout, stderr)
	}
	gated := func() (*gate.Report, error) { return gateFiles(fs.Arg(0), fs.Arg(1), opts) }
	if len(logs) > 0 {
		gated = func() (*gate.Report, error) { return gateLog(cfg, logs, *window, fs.Arg(0), fs.Arg(1), opts) }
	}
	rep, err := gated()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return 2
	}
	ci.gated(rep)
	return writeVerdict("gate", rep, stdout, stderr)
}

const gateUsage = `usage: llmsla gate [flags] BASE NEW
       llmsla gate -plan ttft-p95-ms=10% BASE

Fails (exit 1) when a figure in NEW is significantly worse than in BASE,
after Holm–Bonferroni within its family, and beyond its tolerance
(defaults: 10% and 1 ms for *-ms units, 20% for *-p99-ms, 10% for */s, 1
point for *-% units, then the gate: section of the SLA file, then
-tolerance). Latency percentiles and quality proportions are judged on
the requests in X.samples.jsonl beside each X.txt when both have one;
other figures, and all of them without samples, over runs. The report
says what each family covers and what change it can see.

BASE or NEW may be a directory: the results of a run's shards (each
shard's directory, or one holding them all), pooled into one run; every
figure is then judged on their requests, a missing shard is exit 2.

With -log FILE (production's request logs, read as llmsla verdict -log
reads them), BASE and NEW may be windows of the log, named by their start
as the verdict table shows it (2026-11-30T10:00Z, -window long), or one of
them a recorded run of one level, matched by the model its endpoint served.

Exit 2 means the files cannot be compared — a file missing, cut short or
corrupt (named as file:line), a benchmark of BASE missing from NEW — or
the SLA file is broken; the message says why and what to do. It also
means BLIND: nothing regressed, but a latency percentile could not be
seen at these sample sizes (no change of it, however large, would be
flagged); record more requests, or -allow-blind the unit.

`

// gateFiles gates NEW against BASE, either a benchmark file or a
// directory of shards' results.
func gateFiles(base, new string, opts gate.Options) (*gate.Report, error) {
	if !isDir(base) && !isDir(new) {
		return gate.Gate(recording.File(base), recording.File(new), opts)
	}
	// A directory of shards is judged on its pooled requests only: a flag
	// about benchmark lines would be ignored, so it is refused.
	if opts.RunsOnly || opts.Filter != "*" {
		return nil, fmt.Errorf("-runs-only and -filter choose among benchmark lines, and a directory of shards is judged on its pooled requests only: drop the flag")
	}
	return gateShards(base, new, opts)
}

// writeVerdict writes rep and returns the exit code of its verdict: 0
// PASS, 1 FAIL, 2 BLIND (a latency asked for could not be seen).
func writeVerdict(cmd string, rep *gate.Report, stdout, stderr io.Writer) int {
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "llmsla %s: %v\n", cmd, err)
		return 2
	}
	switch rep.Verdict() {
	case gate.Fail:
		return 1
	case gate.Blind:
		fmt.Fprintf(stderr, "llmsla %s: BLIND: %s: not a pass (exit 2); record more requests or runs (-n, -count), or -allow-blind UNIT for a latency you do not need judged\n", cmd, plural(len(rep.Blind), "latency percentile could not be judged", "latency percentiles could not be judged"))
		return 2
	}
	return 0
}

// gateConfig reads the gate: section of the SLA file that config.Load
// would use ($LLMSLA_CONFIG, else sla.yaml at the module root): alpha (0 when
// unset) and the tolerances by unit, parsed by the loader. It calls
// config.LoadFile rather than config.Load because the gate sends no
// request: an API key that is set only in CI's benchmark step, or an
// LLMSLA_ENDPOINTS selection, must not make the gate step fail. Without a
// file the gate uses its built-in defaults.
func gateConfig() (config.Gate, error) {
	cfg, err := gateObjectives()
	if err != nil {
		return config.Gate{}, err
	}
	return cfg.Gate, nil
}

// gateObjectives is the SLA file the gate reads (its gate: section and the
// objectives, which say which blind figures keep it from passing), or the
// presets without one. It sends nothing, so it reads no key and selects no
// endpoint.
func gateObjectives() (*config.Config, error) {
	if path := config.Path(); path != "" {
		return config.LoadFile(path)
	}
	return &config.Config{Source: "the presets", Scenarios: config.Presets()}, nil
}

// boundBy says whether an objective of cfg bounds unit on the scenario ×
// endpoint the gate names group ("chat/endpoint=prod", or "chat" when two
// endpoints are judged against each other: then any endpoint's): a blind
// figure with one is not a pass (gate.Options.Objective).
func boundBy(cfg *config.Config) func(group, unit string) bool {
	return func(group, unit string) bool {
		scenario, ep, _ := strings.Cut(group, "/endpoint=")
		var key string
		for _, u := range metric.Units() {
			if u.Unit() == unit {
				key = u.Key()
			}
		}
		if key == "" {
			return true // not a figure of the table: judge it as asked for
		}
		endpoints := cfg.EndpointNames()
		if len(endpoints) == 0 || ep != "" {
			endpoints = []string{ep}
		}
		for _, e := range endpoints {
			for _, name := range []string{e, unescapeEndpoint(cfg, e)} {
				for _, th := range cfg.Objectives(scenario, name) {
					if th.Key() == key {
						return true
					}
				}
			}
		}
		return false
	}
}

// unescapeEndpoint is the configured endpoint whose benchmark name is
// named (sample.NameValue escapes what benchfmt would misread), or named.
func unescapeEndpoint(cfg *config.Config, named string) string {
	for _, e := range cfg.EndpointNames() {
		if sample.NameValue(e) == named {
			return e
		}
	}
	return named
}

// decisionFlags declares on fs the flags of the decision, -alpha and
// -tolerance, and returns what, once fs is parsed, puts them over g, the
// gate: section of the SLA file, into opts.
func decisionFlags(fs *flag.FlagSet, opts *gate.Options) (configure func(g config.Gate)) {
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
	return func(g config.Gate) {
		flagged := opts.Alpha != 0 // -alpha 0.01 sets every family, over the file
		if !flagged && g.Alpha != 0 {
			opts.Alpha = g.Alpha
		}
		for f, a := range g.FamilyAlpha {
			if _, set := opts.FamilyAlpha[f]; !set && !flagged {
				if opts.FamilyAlpha == nil {
					opts.FamilyAlpha = map[string]float64{}
				}
				opts.FamilyAlpha[f] = a // a flag for the family wins
			}
		}
		opts.Tolerance = map[string]gate.Tolerance{}
		for unit, t := range g.Tolerance {
			opts.Tolerance[unit] = t
		}
		for unit, t := range flagTol {
			opts.Tolerance[unit] = t
		}
	}
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
		return 2
	}
	lines, err := gate.Plan(recording.File(base), unit, change, opts)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return 2
	}
	if err := gate.WritePlan(stdout, lines, fmt.Sprintf("%s %s", unit, change)); err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return 2
	}
	return 0
}

// gateShards gates runs of which one at least is a directory of shards'
// results: their samples pooled into one run (a missing shard is an
// error), every figure judged on requests — a shard's own benchmark lines
// are its share of the run, not the run's figures. A .txt side is read
// through the samples file beside it.
func gateShards(base, new string, opts gate.Options) (*gate.Report, error) {
	var sides [2][]sample.Sample
	var provs [2]sample.Provenance
	for i, p := range []string{base, new} {
		if !isDir(p) {
			p = recording.SamplesBeside(p)
		}
		ss, _, err := sample.ReadAll([]string{p}, false)
		if err == nil {
			err = sample.CheckShards(ss)
		}
		if err == nil {
			provs[i], err = sample.ReadProvenance([]string{p})
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", recording.ErrUnusable, err)
		}
		sides[i] = ss
		provs[i] = sample.Merge(provs[i], sample.Observe(ss))
	}
	check, err := provenance.Compare(base, new, provs[0], provs[1], opts.AllowChange)
	if err != nil {
		return nil, err
	}
	rep, err := gate.GateRequests(base, new, sides[0], sides[1], opts)
	if rep != nil {
		rep.Provenance = check
	}
	if err == nil {
		rep.Warnings = append(rep.Warnings, "a side is a run sent by shards: every figure is judged on the pooled requests; the shards' benchmark lines, each its share of the load, are not compared")
	}
	return rep, err
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
