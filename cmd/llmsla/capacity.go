package main

import (
	"fmt"
	"io"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/session"
)

// definitions lists the scenarios a package of suites defines (go test in
// plan mode). A variable, for a test to give the definitions itself and
// run the command without go test.
var definitions = func(pkg string) (session.Suites, error) {
	return session.GoTest{Pkg: pkg, Bench: "."}.Suites()
}

// runCapacity searches the highest load at which every objective of a
// scenario holds, on each selected endpoint, in this process: each step a
// level of the scenario's samples: requests, recorded (labelled
// search=capacity) in results/ but not as results/latest.*, the answer last.
func runCapacity(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("capacity", usageOf("capacity"), stderr)
	scenario := fs.String("scenario", "chat", "the scenario to search (one the suites define)")
	endpoint := fs.String("endpoint", "", "the endpoint to search (default: every selected one)")
	out := fs.String("out", "results", "the `directory` of recorded runs")
	misnamed(fs, "o", useOut)
	pkg := fs.String("pkg", "./suites/...", "package of the scenarios")
	var set []string
	for _, k := range []struct{ name, usage string }{
		{"by", "rate (open loop), concurrency (closed loop) or speedup (the scenario's trace: replayed faster); default: the scenario's capacity: block, else rate"},
		{"start", "the first level tried (default 1)"},
		{"max", "the highest level tried (default 1000 req/s, 1024 in flight)"},
		{"resolution", "how close the last good and first bad levels end, relative (default 0.1)"},
		{"repeats", "runs of each level, every one must hold (default 1)"},
	} {
		fs.Func(k.name, k.usage, func(v string) error { set = append(set, k.name+"="+v); return nil })
	}
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitBroken
	}
	cfg, err := config.Load()
	if err != nil {
		return broken(stderr, "llmsla capacity", err)
	}
	stdout, stderr, _, done := redacting(cfg, stdout, stderr)
	defer done()
	fail := func(err error) int { return broken(stderr, "llmsla capacity", err) }
	suites, err := definitions(*pkg)
	if err != nil {
		return fail(err)
	}
	search, err := session.PrepareCapacity(cfg, suites, *scenario, *endpoint, set)
	if err != nil {
		return fail(err)
	}
	run, err := session.OpenInProcess(cfg, recording.KindCapacity, *out, []session.Scenario{search.Scenario}, func(w error) {
		fmt.Fprintf(stderr, "llmsla capacity: warning: preflight:\n%v\nsearching anyway\n", w)
	})
	if err != nil {
		return fail(err)
	}
	ctx, stop := interrupts()
	defer stop()
	err = search.Run(ctx, run, func(name string, cs config.Capacity, r capacity.Result, err error) {
		for _, st := range r.Steps {
			verdict := "held"
			if !st.OK {
				verdict = "over: " + st.Why
			}
			fmt.Fprintf(stdout, "  step %s endpoint=%s %s=%s: %s\n", *scenario, name, cs.By, metric.Num(st.Level), verdict)
		}
		if err == nil {
			fmt.Fprintln(stdout, report.CapacityLine(*scenario, name, cs.By, cs.Resolution, r))
		}
	})
	if err != nil {
		kept := run.Abandon()
		return fail(fmt.Errorf("%w; %s holds the steps so far (no limit is recorded)", why(ctx, err), kept.Samples()))
	}
	fmt.Fprintf(stdout, "recorded %s and %s\n", run.Rec.Txt(), run.Rec.Samples())
	return exitOK
}
