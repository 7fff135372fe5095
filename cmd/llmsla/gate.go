package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/llmsla/llmsla/harness/gate"
)

// runGate compares NEW against BASE and exits 0 on pass, 1 on a
// regression, 2 when the input cannot be judged, so CI can tell a slower
// candidate from a broken benchmark run.
func runGate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := gate.Options{Tolerance: map[string]gate.Tolerance{}}
	fs.Float64Var(&opts.Alpha, "alpha", 0.05, "family-wise significance `level` (Holm–Bonferroni over all comparisons)")
	fs.StringVar(&opts.Filter, "filter", "*", "use only benchmarks matching benchfilter `query`")
	fs.Func("tolerance", "per-unit tolerance `unit=10%` (relative) or `unit=1` (absolute); unit may be a glob; repeatable", func(s string) error {
		unit, t, err := gate.ParseTolerance(s)
		if err == nil {
			opts.Tolerance[unit] = t
		}
		return err
	})
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: llmsla gate [flags] BASE NEW

Fails (exit 1) when a figure in NEW is worse than in BASE: significant by
Mann-Whitney after Holm–Bonferroni, and beyond its tolerance (defaults:
10% for *-ms and */s units, 1 point for *-% units). Exit 2 means the
files cannot be compared; the message says why and what to do.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return 2
	}
	rep, err := gate.Gate(gate.File(fs.Arg(0)), gate.File(fs.Arg(1)), opts)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return 2
	}
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "llmsla gate: %v\n", err)
		return 2
	}
	if rep.Failed() {
		return 1
	}
	return 0
}
