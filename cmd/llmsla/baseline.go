package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
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
		*samples = gate.SamplesBeside(*from)
	}
	counts, err := runCounts(*from)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla baseline: %v (run `make bench` first)\n", err)
		return 2
	}
	if len(counts) == 0 {
		fmt.Fprintf(stderr, "llmsla baseline: %s has no benchmark results\n", *from)
		return 2
	}
	for name, n := range counts {
		if n < *minCount {
			fmt.Fprintf(stderr, "llmsla baseline: %s has %d runs of %s, need ≥ %d: run `make bench` with -count %d\n", *from, n, name, *minCount, *minCount)
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
	// The gate must be able to read what is promoted, benchmarks and
	// samples together (the same runs, no corrupt line): compared with
	// itself, it either judges or says why it cannot.
	if _, err := gate.Gate(gate.Source{Name: *from, Path: *from, SamplesPath: *samples}, gate.Source{Name: *from, Path: *from, SamplesPath: *samples}, gate.Options{}); err != nil {
		fmt.Fprintf(stderr, "llmsla baseline: not promoting %s: %v\n", *from, err)
		return 2
	}
	// The samples go first: a reader of the baseline never sees a new
	// benchmark file beside the old samples, which the gate would refuse.
	toSamples := gate.SamplesBeside(*to)
	for _, pair := range [][2]string{{*samples, toSamples}, {*from, *to}} {
		b, err := os.ReadFile(pair[0])
		if err == nil {
			err = atomicfile.Write(pair[1], b)
		}
		if err != nil {
			fmt.Fprintf(stderr, "llmsla baseline: %v\n", err)
			return 2
		}
	}
	fmt.Fprintf(stdout, "promoted %s to %s and %s to %s\n", *from, *to, *samples, toSamples)
	return 0
}

// runCounts counts the results of each benchmark in a benchfmt file.
func runCounts(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]int{}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			counts[string(rec.Name.Full())]++
		case *benchfmt.SyntaxError:
			return nil, rec
		}
	}
	if err := r.Err(); err != nil {
		return nil, errors.New(err.Error())
	}
	return counts, nil
}
