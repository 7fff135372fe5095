package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/llmsla/llmsla/harness/config"
)

// runCapacity searches the highest load at which every objective of a
// scenario holds, on each selected endpoint: the suites' benchmark of the
// scenario runs its capacity search alone ($LLMSLA_CAPACITY), recorded like
// any bench (every step's samples included) but not as results/latest.*.
func runCapacity(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("capacity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scenario := fs.String("scenario", "chat", "the scenario to search")
	endpoint := fs.String("endpoint", "", "the endpoint to search (default: every selected one)")
	by := fs.String("by", "", "rate (open loop) or concurrency (closed loop); default: the scenario's capacity: block, else rate")
	start := fs.Float64("start", 0, "the first level tried (default 1)")
	max := fs.Float64("max", 0, "the highest level tried (default 1000 req/s, 1024 in flight)")
	resolution := fs.Float64("resolution", 0, "how close the last good and first bad levels end, relative (default 0.1)")
	repeats := fs.Int("repeats", 0, "runs of each level, every one must hold (default 1)")
	out := fs.String("out", "results", "directory of recorded runs")
	pkg := fs.String("pkg", "./suites/...", "package of the scenarios")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: llmsla capacity [flags]

Finds the highest load (rate, or concurrency) at which every objective of
the scenario holds on each endpoint: doubling from -start until a level
fails, then bisecting to -resolution. Each level sends the scenario's
samples: requests. Prints the limit and the first objective that fails above
it, records every step in results/, and reports max-rps (max-concurrency) as
a benchmark unit. Exit 0 when the search ran, 2 when it could not.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	spec := *scenario + ":"
	add := func(k, v string) { spec += k + "=" + v + "," }
	if *by != "" {
		add("by", *by)
	}
	for k, v := range map[string]float64{"start": *start, "max": *max, "resolution": *resolution, "repeats": float64(*repeats)} {
		if v != 0 {
			add(k, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	os.Setenv(config.EnvCapacity, spec)
	if *endpoint != "" {
		os.Setenv(config.EnvEndpoints, *endpoint)
	}
	// The steps above the limit fail by design; verdicts do not count them
	// (only the SLA's own runs can make an exit 1).
	return runBench([]string{"-count", "1", "-n", "2", "-bench", ".", "-out", *out, "-pkg", *pkg, "-latest=false"}, stdout, stderr)
}
