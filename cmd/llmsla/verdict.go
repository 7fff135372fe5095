package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// runVerdict prints the SLA verdicts of recorded samples files.
func runVerdict(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verdict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: llmsla verdict SAMPLES.jsonl [MORE.jsonl …]

Prints the SLA verdict table of recorded samples (e.g.
results/latest.samples.jsonl) against the objectives of the configuration
(sla.yaml, $LLMSLA_CONFIG, or the presets). The files of several shards or
runs are pooled into one verdict. Exit 0 when every objective is met, 1 when
one is not, 2 when a file cannot be read.
`)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	cfg, err := config.LoadWithoutKeys()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	return verdicts(cfg, fs.Args(), stdout, stderr)
}

// verdicts prints the SLA table of samples files (shards of one run merge:
// their samples are pooled, each run keeping its own time window): 0 all
// met, 1 not, 2 unreadable.
func verdicts(cfg *config.Config, paths []string, stdout, stderr io.Writer) int {
	var samples []sample.Sample
	for _, path := range paths {
		s, err := sample.Read(path)
		if err != nil {
			fmt.Fprintf(stderr, "llmsla: %v\n", err)
			return 2
		}
		if len(s) == 0 {
			fmt.Fprintf(stderr, "llmsla: %s: no samples recorded\n", path)
			return 2
		}
		samples = append(samples, s...)
	}
	vs := objective.Evaluate(samples, cfg.Objectives)
	report.Verdicts(stdout, vs)
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
