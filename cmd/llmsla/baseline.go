package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
)

// runBaseline promotes a recorded run and its samples to the baseline the
// gate compares against (golden/baseline.txt and .samples.jsonl), but only
// a run that met its SLAs, has enough runs per benchmark to ever show a
// significant change, and that the gate can read.
func runBaseline(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "results/latest.txt", "recorded run (benchfmt)")
	samples := fs.String("samples", "", "its samples (default: FROM with .samples.jsonl)")
	to := fs.String("to", "golden/baseline.txt", "baseline to write; its samples go beside it (.samples.jsonl)")
	// As bench's -count: with fewer runs the gate cannot flag anything
	// among the suites' ~80 comparisons, and would refuse this baseline.
	minCount := fs.Int("min-count", 10, "runs needed per benchmark")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if *samples == "" {
		*samples = recording.SamplesBeside(*from)
	}
	// The gate must be able to read what is promoted, benchmarks and
	// samples together (the same runs, no corrupt line), and it must have
	// enough runs to ever show a change.
	counts, err := gate.Check(recording.Source{Name: *from, Path: *from, SamplesPath: *samples}, gate.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "llmsla baseline: not promoting %s: %v\n", *from, err)
		return 2
	}
	names := slices.Sorted(maps.Keys(counts))
	for _, name := range names {
		if n := counts[name]; n < *minCount {
			fmt.Fprintf(stderr, "llmsla baseline: %s has %d runs of %s, need ≥ %d: run `make bench COUNT=%d` (or llmsla bench -count %d)\n", *from, n, name, *minCount, *minCount, *minCount)
			return 2
		}
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla baseline: %v\n", err)
		return 2
	}
	if code := verdicts(cfg, []string{*samples}, stdout, stderr, verdictOptions{}); code != 0 {
		fmt.Fprintf(stderr, "llmsla baseline: not promoting %s: it did not meet its SLAs\n", *from)
		return code
	}
	// The samples go first: a reader of the baseline never sees a new
	// benchmark file beside the old samples, which the gate would refuse.
	toSamples := recording.SamplesBeside(*to)
	if err := atomicfile.Replace(atomicfile.Copy{From: *samples, To: toSamples}, atomicfile.Copy{From: *from, To: *to}); err != nil {
		fmt.Fprintf(stderr, "llmsla baseline: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "promoted %s to %s and %s to %s\n", *from, *to, *samples, toSamples)
	return 0
}
