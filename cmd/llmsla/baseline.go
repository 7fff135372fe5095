package main

import (
	"fmt"
	"io"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/verdict"
)

// runBaseline promotes a recorded run and its samples to the baseline the
// gate compares against (golden/baseline.txt and .samples.jsonl), but only
// a run that met its SLAs, has enough runs per benchmark to ever show a
// significant change, and that the gate can read (verdict.CheckBaseline).
func runBaseline(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("baseline", "", stderr)
	from := fs.String("from", "results/latest.txt", "recorded run (benchfmt)")
	samples := fs.String("samples", "", "its samples (default: FROM with .samples.jsonl)")
	to := fs.String("to", "golden/baseline.txt", "baseline to write; its samples go beside it (.samples.jsonl)")
	// As bench's -count: with fewer runs the gate cannot flag anything
	// among the suites' ~80 comparisons, and would refuse this baseline.
	minCount := fs.Int("min-count", 10, "runs needed per benchmark")
	file := configFlag(fs)
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "llmsla baseline: %q: want no arguments (-from FILE names the run)\n", fs.Args())
		return exitBroken
	}
	if *samples == "" {
		*samples = recording.SamplesBeside(*from)
	}
	if err := verdict.CheckBaseline(*from, *samples, *minCount); err != nil {
		return broken(stderr, "llmsla baseline", err)
	}
	cfg, note, err := verdict.Against(*file, config.LoadWithoutKeys, *samples)
	if err != nil {
		return broken(stderr, "llmsla baseline", err)
	}
	if note != "" {
		fmt.Fprintf(stderr, "llmsla baseline: note: %s\n", note)
	}
	if code, _ := judgeFiles(cfg, []string{*samples}, stdout, stderr, verdictOptions{}); code != exitOK {
		fmt.Fprintf(stderr, "llmsla baseline: not promoting %s: it did not meet its SLAs\n", *from)
		return code
	}
	// The samples go first: a reader of the baseline never sees a new
	// benchmark file beside the old samples, which the gate would refuse.
	if err := recording.PromoteTo(*from, *samples, *to); err != nil {
		return broken(stderr, "llmsla baseline", err)
	}
	fmt.Fprintf(stdout, "promoted %s to %s and %s to %s\n", *from, *to, *samples, recording.SamplesBeside(*to))
	return exitOK
}
