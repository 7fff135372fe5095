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
	"github.com/llmsla/llmsla/harness/sample"
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
	out := fs.String("o", "", "write to this file instead of standard output")
	qual := fs.String("quality", "accuracy", "the quality axis: "+strings.Join(report.QualityAxes(), ", ")+" (judge_pass: the judge's verdicts)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: llmsla report [-format text|markdown|json|csv|html] [-prefer cost|latency] [-quality accuracy|judge_pass|…] [-o FILE] [SAMPLES.jsonl|DIR …]\n"+
			"  (default %s; several files, or the results/ of several shards, pool their samples)\n", defaultSamples)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if *prefer != string(report.PreferCost) && *prefer != string(report.PreferLatency) {
		fmt.Fprintf(stderr, "llmsla report: -prefer %q: want cost or latency\n", *prefer)
		return 2
	}
	if !slices.Contains(report.QualityAxes(), *qual) {
		fmt.Fprintf(stderr, "llmsla report: -quality %q: want one of %s\n", *qual, strings.Join(report.QualityAxes(), ", "))
		return 2
	}
	write, ok := formats[*format]
	if !ok {
		fmt.Fprintf(stderr, "llmsla report: -format %q: want text, markdown, json, csv or html\n", *format)
		return 2
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{defaultSamples}
	}
	cfg, err := config.LoadWithoutKeys() // a report sends nothing
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	stdout, stderr, sec, done := redacting(cfg, stdout, stderr)
	defer done()
	// As llmsla verdict reads them: a file given twice, a sharded run
	// missing a shard or a misspelt scenario is an error, not a quietly
	// different board.
	samples, _, err := loadSamples(cfg, paths, verdictOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	servers, err := loadServers(paths, false)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	b := report.NewBoard(samples, boardOptions(cfg, servers, report.Prefer(*prefer), *qual))
	if *format == "html" { // the page's header names the run
		write = func(w io.Writer, b *report.Board) error { return html.WriteRun(w, b, runInfo(cfg, paths, samples)) }
	}
	var buf bytes.Buffer
	switch *format { // the run's provenance at the top of what people read
	case "text":
		report.Provenance(&buf, runProvenance(paths, samples))
		buf.WriteString("\n")
	case "markdown":
		for _, l := range report.ProvenanceLines(runProvenance(paths, samples)) {
			buf.WriteString(escape.Markdown(l) + "  \n")
		}
		buf.WriteString("\n")
	}
	if err := write(&buf, b); err != nil {
		fmt.Fprintf(stderr, "llmsla report: %v\n", err)
		return 2
	}
	if *out == "" {
		_, err = stdout.Write(buf.Bytes())
	} else {
		err = atomicfile.Write(*out, sec.RedactBytes(buf.Bytes()))
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla report: %v\n", err)
		return 2
	}
	if *out != "" {
		fmt.Fprintf(stderr, "wrote %s\n", *out)
	}
	return 0
}

var formats = map[string]func(io.Writer, *report.Board) error{
	"text":     func(w io.Writer, b *report.Board) error { b.Text(w, false); return nil },
	"markdown": func(w io.Writer, b *report.Board) error { b.Markdown(w); return nil },
	"json":     func(w io.Writer, b *report.Board) error { return b.JSON(w) },
	"csv":      func(w io.Writer, b *report.Board) error { return b.CSV(w) },
	"html":     func(w io.Writer, b *report.Board) error { return html.Write(w, b) },
}

// newBoard judges samples against the configuration's objectives, as
// `llmsla verdict` does, and prices them at its endpoints' prices.
func newBoard(cfg *config.Config, samples []sample.Sample, servers serverRecord, prefer report.Prefer) *report.Board {
	return report.NewBoard(samples, boardOptions(cfg, servers, prefer, ""))
}

// boardOptions are the board's options from the configuration, the
// servers' readings, the preference and the quality axis ("": accuracy).
func boardOptions(cfg *config.Config, servers serverRecord, prefer report.Prefer, quality string) report.Options {
	return report.Options{Objectives: cfg.Objectives, Prices: cfg.Prices, Alpha: cfg.Gate.Alpha, Prefer: prefer, Quality: quality,
		Servers: servers.figures, Timelines: servers.timelines}
}

// leaderboard prints the short board after bench's verdict table when the
// run measured two or more endpoints: the one thing a model selection
// needs to read first. samples are those the verdicts judged, read from
// path.
func leaderboard(cfg *config.Config, samples []sample.Sample, path string, stdout io.Writer) {
	servers, _ := loadServers([]string{path}, true) // judged above: what it read, the board reads
	b := newBoard(cfg, samples, servers, report.PreferCost)
	if len(b.Endpoints) < 2 {
		return
	}
	fmt.Fprintln(stdout)
	b.Text(stdout, true)
	fmt.Fprintf(stdout, "(per scenario, rankings and plots: llmsla report %s; -format markdown, json, csv, or html -o report.html)\n", path)
}
