package main

import (
	"fmt"
	"io"
	"os"

	"github.com/llmsla/llmsla/harness/compare"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/verdict"
)

// runCompare prints a benchstat-style table of recorded runs. It is
// descriptive and never fails on a regression; that is runGate's job.
func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("compare", usageOf("compare"), stderr)
	var opts compare.Options
	fs.StringVar(&opts.Col, "col", ".file", "split results into columns by distinct values of `projection` (e.g. /endpoint)")
	fs.StringVar(&opts.Row, "row", ".fullname", "split results into rows by distinct values of `projection`")
	fs.StringVar(&opts.Filter, "filter", "*", "use only benchmarks matching benchfilter `query`")
	full := fs.Bool("full", false, "benchstat's tables, every unit, instead of the summary")
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitBroken
	}
	if fs.NArg() == 2 && (isDir(fs.Arg(0)) || isDir(fs.Arg(1))) {
		// A run sent by shards is compared as one, on its pooled
		// requests: the gate's report, without the gate's exit code.
		rep, err := verdict.GateShards(fs.Arg(0), fs.Arg(1), gate.Options{})
		if err == nil {
			err = rep.WriteText(stdout)
		}
		if err != nil {
			return broken(stderr, "llmsla compare", err)
		}
		return exitOK
	}
	var srcs []recording.Source
	for _, p := range fs.Args() {
		if isDir(p) {
			fmt.Fprintf(stderr, "llmsla compare: %s is a directory: compare a run of shards with one other run (compare A DIR), or give .txt files\n", p)
			return exitBroken
		}
		srcs = append(srcs, recording.File(p))
	}
	describe := compare.Summary
	if *full {
		describe = compare.Tables
	}
	if err := describe(stdout, opts, srcs...); err != nil {
		return broken(stderr, "llmsla compare", err)
	}
	return exitOK
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
