package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/report/html"
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
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "text, markdown, json, csv or html")
	prefer := fs.String("prefer", "cost", "what the recommendation minimises among endpoints meeting every objective: cost or latency")
	out := fs.String("o", "", "write the report to this `file` instead of standard output")
	misnamed(fs, "out", useO)
	qual := fs.String("quality", "accuracy", "the quality axis: "+strings.Join(report.QualityAxes(), ", ")+" (judge_pass: the judge's verdicts)")
	file := configFlag(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: llmsla report [-format text|markdown|json|csv|html] [-prefer cost|latency] [-quality accuracy|judge_pass|…] [-o FILE] [-config FILE] [SAMPLES.jsonl|DIR …]\n"+
			"  (default %s; several files, or the results/ of several shards, pool their samples; endpoints, prices and objectives are those of the SLA file the run was measured under)\n", defaultSamples)
		fs.PrintDefaults()
	}
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
	write, ok := formats[*format]
	if !ok {
		fmt.Fprintf(stderr, "llmsla report: -format %q: want text, markdown, json, csv or html\n", *format)
		return exitBroken
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{defaultSamples}
	}
	cfg, note, err := verdict.Against(*file, config.LoadWithoutKeys, paths...) // a report sends nothing
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
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
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
	}
	b := r.Board(cfg, report.Prefer(*prefer), *qual)
	if *format == "html" { // the page's header names the run
		write = func(w io.Writer, b *report.Board) error { return html.WriteRun(w, b, r.Info(cfg)) }
	}
	var buf bytes.Buffer
	switch *format { // the run's provenance at the top of what people read
	case "text":
		report.Provenance(&buf, r.Provenance)
		buf.WriteString("\n")
	case "markdown":
		for _, l := range report.ProvenanceLines(r.Provenance) {
			buf.WriteString(escape.Markdown(l) + "  \n")
		}
		buf.WriteString("\n")
	}
	if err := write(&buf, b); err != nil {
		fmt.Fprintf(stderr, "llmsla report: %v\n", err)
		return exitBroken
	}
	if *out == "" {
		_, err = stdout.Write(buf.Bytes())
	} else {
		err = atomicfile.Write(*out, sec.RedactBytes(buf.Bytes()))
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla report: %v\n", err)
		return exitBroken
	}
	if *out != "" {
		fmt.Fprintf(stderr, "wrote %s\n", *out)
	}
	return exitOK
}

var formats = map[string]func(io.Writer, *report.Board) error{
	"text":     func(w io.Writer, b *report.Board) error { b.Text(w, false); return nil },
	"markdown": func(w io.Writer, b *report.Board) error { b.Markdown(w); return nil },
	"json":     func(w io.Writer, b *report.Board) error { return b.JSON(w) },
	"csv":      func(w io.Writer, b *report.Board) error { return b.CSV(w) },
	"html":     func(w io.Writer, b *report.Board) error { return html.Write(w, b) },
}
