package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// runVerdict prints the SLA verdicts of recorded samples files.
func runVerdict(args []string, stdout, stderr io.Writer) (code int) {
	fs := flag.NewFlagSet("verdict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts verdictOptions
	opts.ci = ciFlags(fs)
	fs.BoolVar(&opts.partial, "partial", false, "judge files cut short (an interrupted run) on what finished, saying so, instead of refusing them")
	logs := fs.Bool("log", false, "the FILEs are production's request logs, one JSON object a request (the SLA file's logs: fields, by default the structlog names), judged per -window")
	window := fs.Duration("window", 0, "with -log, the `length` of each window judged (default logs.window of the SLA file, else 1h)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: llmsla verdict SAMPLES.jsonl|DIR [MORE …]
       llmsla verdict -log [-window 1h] LOG.jsonl [MORE …]

Prints the SLA verdict table of recorded samples (e.g.
results/latest.samples.jsonl) against the objectives of the configuration
(sla.yaml, $LLMSLA_CONFIG, or the presets). The files of several shards or
runs are pooled into one verdict; a directory stands for the
*.samples.jsonl files in and below it, and a sharded run missing a shard is
an error, as is a file cut short (unless -partial), a line holding what no
request can measure (file:line names it), samples that measured nothing
(warm-up or capacity-search steps only) and a scenario the SLA file names
that the files do not hold. Exit 0 when every objective is met, 1 when
one is not, 2 when the files cannot be judged.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	stderr = opts.ci.start("verdict", stdout, stderr)
	defer func() { code = opts.ci.finish(code) }()
	cfg, err := config.LoadWithoutKeys()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	// Samples come redacted; this is the second line for what they hold of
	// keys set in this environment.
	stdout, stderr, _, done := redacting(cfg, stdout, stderr)
	defer done()
	if *logs {
		return logVerdicts(cfg, fs.Args(), *window, stdout, stderr, opts)
	}
	return verdicts(cfg, fs.Args(), stdout, stderr, opts)
}

// verdictOptions say what a verdict may take.
type verdictOptions struct {
	// shard: a shard's own bench judges its share only, to show it: the run
	// is judged when every shard's files are merged, so an objective its
	// share misses is not a failure of the shard.
	shard load.Shard
	// partial: files cut short are judged on what finished, with a warning.
	partial bool
	// unfinished: the run was interrupted or go test failed: what finished
	// is shown, and a verdict that would pass is not one.
	unfinished bool
	// summary, when set, is the file the verdicts are written to as JSON
	// (report.Summary).
	summary string
	// steps: capacity-search steps are what the run measured (the bench
	// of llmsla capacity), shown as held or over; elsewhere samples of
	// search steps alone are nothing an objective judges.
	steps bool
	// ci is told what was judged, for the JUnit file, step summary and
	// annotations (nil: none).
	ci *ciOutputs
}

// loadSamples reads what verdict, report and bench's leaderboard judge,
// with one set of checks: samples files and directories pooled (a file
// given twice is an error), every line bounded and checked against what a
// request can measure (sample.Read), a file cut short refused unless
// opts.partial (the cuts are returned), a sharded run missing a shard
// refused (but in a shard's own bench, which holds its share only), a
// scenario the SLA file names that the files do not hold refused (a
// misspelling whose objectives would judge nothing), and samples that
// measured nothing (warm-up, cold first requests, search steps but in
// opts.steps) refused: an empty table is not a pass.
func loadSamples(cfg *config.Config, paths []string, opts verdictOptions) (samples []sample.Sample, cut []error, err error) {
	samples, cut, err = sample.ReadAll(paths, opts.partial)
	if err == nil && !opts.shard.On() {
		err = sample.CheckShards(samples)
	}
	if err == nil {
		err = cfg.CheckScenarios(recorded(samples))
	}
	if err == nil && !(opts.steps && searched(samples)) {
		err = sample.CheckMeasured(samples)
	}
	if err != nil {
		return nil, nil, err
	}
	return samples, cut, nil
}

// searched reports whether samples hold a measured capacity-search step.
func searched(samples []sample.Sample) bool {
	return slices.ContainsFunc(samples, func(s sample.Sample) bool {
		_, step := s.Level.Get("search")
		return step && s.Measured()
	})
}

// verdicts prints the SLA table of samples files and directories (shards
// of one run merge: their samples are pooled; a missing shard is an error):
// 0 all met, 1 not, 2 unusable.
func verdicts(cfg *config.Config, paths []string, stdout, stderr io.Writer, opts verdictOptions) int {
	code, _ := judgeSamples(cfg, paths, stdout, stderr, opts)
	return code
}

// judgeSamples is verdicts, returning also the samples it judged.
func judgeSamples(cfg *config.Config, paths []string, stdout, stderr io.Writer, opts verdictOptions) (int, []sample.Sample) {
	samples, cut, err := loadSamples(cfg, paths, opts)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2, nil
	}
	servers, err := loadServers(paths, opts.partial)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2, nil
	}
	return judgeVerdicts(cfg, paths, samples, servers, cut, stdout, stderr, opts), samples
}

// judgeVerdicts prints the SLA table of samples read from paths (cut: the files
// cut short), with the servers' readings beside them, writes the run's
// summary when opts ask for one, and returns the verdict's exit code.
func judgeVerdicts(cfg *config.Config, paths []string, samples []sample.Sample, servers serverRecord, cut []error, stdout, stderr io.Writer, opts verdictOptions) int {
	for _, c := range append(cut, servers.cut...) {
		fmt.Fprintf(stdout, "WARNING: %v: judged on the requests that finished\n", c)
	}
	vs := objective.EvaluateServer(samples, cfg.Objectives, servers.figures)
	opts.ci.judged(cfg, paths, samples, vs, opts)
	report.Provenance(stdout, runProvenance(paths, samples))
	report.Verdicts(stdout, vs)
	code := conclude(vs, opts, stdout)
	if opts.summary != "" {
		if err := writeSummary(opts.summary, vs, runInfo(cfg, paths, samples), code); err != nil {
			fmt.Fprintf(stderr, "llmsla: the run's summary: %v\n", err)
			return 2
		}
	}
	return code
}

// conclude says, under the table, what the verdicts come to, and returns
// the exit code.
func conclude(vs []objective.Verdict, opts verdictOptions, stdout io.Writer) int {
	if opts.shard.On() {
		fmt.Fprintf(stdout, "\nShard %s: its share of the run only. Judge the run with every shard's files: llmsla verdict DIR…\n", opts.shard)
		return 0
	}
	if opts.unfinished {
		fmt.Fprintln(stdout, "\nThe run did not finish: the table shows what it measured, which is not judged.")
		return 2
	}
	if objective.Failed(vs) {
		fmt.Fprintln(stdout, "\nSLA violated.")
		return 1
	}
	for _, v := range vs {
		if v.Search() == "" {
			fmt.Fprintln(stdout, "\nAll SLAs met.")
			return 0
		}
	}
	fmt.Fprintln(stdout, "\nOnly search steps: held = every objective met at that level, over = not.")
	return 0
}

// writeSummary writes the verdicts as JSON to path, whole or not at all.
func writeSummary(path string, vs []objective.Verdict, run report.RunInfo, code int) error {
	var b bytes.Buffer
	if err := report.WriteSummary(&b, vs, run, code); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes())
}

// judgeRun prints what bench prints of the run's samples file: the
// verdicts and, unless this is a shard (its figures are its share of the
// run only), the leaderboard of the same samples — also when the file was
// cut short by an interrupt and judged on what finished.
func judgeRun(cfg *config.Config, path string, stdout, stderr io.Writer, opts verdictOptions) int {
	opts.steps = true // llmsla capacity's bench measures search steps
	code, samples := judgeSamples(cfg, []string{path}, stdout, stderr, opts)
	if code != 2 && !opts.shard.On() {
		leaderboard(cfg, samples, path, stdout)
	}
	return code
}

// recorded lists the scenarios the samples hold, and the presets: an SLA
// file may set a preset the files did not run, but a name that is neither
// is a misspelling that would judge nothing.
func recorded(samples []sample.Sample) []string {
	seen := map[string]bool{}
	for name := range config.Presets() {
		seen[name] = true
	}
	for i := range samples {
		seen[samples[i].Scenario] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// runProvenance is what the samples files say was measured: their
// provenance records, pooled, and the models that answered. A record
// that cannot be read was refused with the samples already.
func runProvenance(paths []string, samples []sample.Sample) sample.Provenance {
	p, _ := sample.ReadProvenance(paths)
	if p == nil {
		return nil
	}
	return sample.Merge(p, sample.Observe(samples))
}
