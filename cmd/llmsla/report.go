package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/verdict"
)

// defaultSamples is the file `llmsla report` reads when given none: the
// last complete `llmsla bench`.
var defaultSamples = filepath.Join("results", "latest.samples.jsonl")

// runReport writes the model-selection report of samples files (several
// files pool: shards, or runs of several endpoints): 0 written, 2 the input
// or the configuration is unusable. Whether an endpoint met its objectives
// is in the report, not the exit code: `llmsla verdict` is the check.
func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("report", usageOf("report"), stderr)
	format := fs.String("format", "text", "text, markdown, json, csv or html")
	prefer := fs.String("prefer", "cost", "what the recommendation minimises among endpoints meeting every objective: cost or latency")
	out := fs.String("o", "", "write the report to this `file` instead of standard output")
	misnamed(fs, "out", useO)
	qual := fs.String("quality", "accuracy", "the quality axis: "+strings.Join(report.QualityAxes(), ", ")+" (judge_pass: the judge's verdicts)")
	file := configFlag(fs)

	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if *prefer != string(report.PreferCost) && *prefer != string(report.PreferLatency) {
		fmt.Fprintf(stderr, "llmsla report: -prefer %q: want cost or latency\n", *prefer)
		return exitBroken
	}
	if !slices.Contains(report.QualityAxes(), *qual) {
		fmt.Fprintf(stderr, "llmsla report: -quality %q: want one of %s\n", *qual, strings.Join(report.QualityAxes(), ", "))
		return exitBroken
	}
	if !slices.Contains(verdict.Formats, *format) {
		fmt.Fprintf(stderr, "llmsla report: -format %q: want %s\n", *format, strings.Join(verdict.Formats, ", "))
		return exitBroken
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{defaultSamples}
	}
	cfg, note, err := verdict.Against(*file, config.LoadWithoutKeys, paths...) // a report sends nothing
	if err != nil {
		return broken(stderr, "llmsla", err)
	}
	stdout, stderr, sec, done := redacting(cfg, stdout, stderr)
	defer done()
	if note != "" {
		fmt.Fprintf(stderr, "llmsla: note: %s\n", note)
	}
	// As llmsla verdict reads them: a file given twice, a sharded run
	// missing a shard or a misspelt scenario is an error, not a quietly
	// different board.
	r, err := verdict.Load(cfg, paths, verdict.Options{})
	if err != nil {
		return broken(stderr, "llmsla", err)
	}
	buf, err := verdict.Render(r, cfg, *format, report.Prefer(*prefer), *qual)
	if err != nil {
		return broken(stderr, "llmsla report", err)
	}
	if *out == "" {
		_, err = stdout.Write(buf)
	} else {
		err = atomicfile.Write(*out, sec.RedactBytes(buf))
	}
	if err != nil {
		return broken(stderr, "llmsla report", err)
	}
	if *out != "" {
		fmt.Fprintf(stderr, "wrote %s\n", *out)
	}
	return exitOK
}
