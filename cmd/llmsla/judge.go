package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/verdict"
)

func runJudge(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "calibrate" {
		fmt.Fprint(stderr, usageOf("judge"))
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return exitOK
		}
		return exitBroken
	}
	fs := newFlags("judge calibrate", usageOf("judge"), stderr)
	f := &session.Calibration{}
	fs.StringVar(&f.Labels, "labels", "", "the labelled answers (JSON lines)")
	fs.StringVar(&f.Rubric, "rubric", "", "the rubric the answers are judged under (a YAML file)")
	fs.StringVar(&f.Judge, "judge", "", "the judge endpoint (default: the SLA file's judge: endpoint)")
	fs.StringVar(&f.Vs, "vs", "", "a second judge endpoint, compared with the first and with the labels")
	fs.BoolVar(&f.Rejudge, "rejudge", false, "ask the judges about every answer again, reading nothing from the cache")
	fs.Float64Var(&f.AgreementMin, "agreement-min", math.NaN(), "the least kappa with the labels (default: the SLA file's judge_agreement_min, else none)")
	if err := parse(fs, args[1:]); err != nil {
		return parseFailed(err)
	}
	if f.Labels == "" || f.Rubric == "" || fs.NArg() > 0 || (!math.IsNaN(f.AgreementMin) && (f.AgreementMin < -1 || f.AgreementMin > 1)) {
		fmt.Fprintf(stderr, "llmsla judge calibrate: want -labels FILE and -rubric FILE, no arguments, and -agreement-min from -1 to 1 (got %q, %q, %q, %v)\n", f.Labels, f.Rubric, fs.Args(), f.AgreementMin)
		return exitBroken
	}
	cfg, err := config.Load()
	if err != nil {
		return broken(stderr, "llmsla", err)
	}
	stdout, stderr, _, done := redacting(cfg, stdout, stderr)
	defer done()
	ctx, stop := interrupts()
	defer stop()
	met, err := session.Calibrate(ctx, cfg, *f, stdout)
	switch {
	case err != nil:
		return broken(stderr, "llmsla judge calibrate", why(ctx, err))
	case !met:
		return exitViolated
	}
	return exitOK
}

// judgeLines prints, after a bench's verdicts, what the judge did: the
// answers judged and its own requests (verdict.JudgeAccount) — latency,
// failures, tokens and cost — none of which is in any measured figure.
// Nothing without a judge: block.
func judgeLines(cfg *config.Config, samplesPath, judgePath string, stdout io.Writer) {
	if cfg.Judge == nil {
		return
	}
	judged, sent, lines, err := verdict.JudgeAccount(cfg, samplesPath, judgePath)
	if errors.Is(err, verdict.ErrUnread) {
		return // the verdicts above said so
	}
	if err != nil {
		fmt.Fprintf(stdout, "judge %s: %v\n", cfg.Judge.Endpoint.Name, err)
		return
	}
	fmt.Fprintf(stdout, "\njudge %s: %s judged, %s sent (the rest from the cache or shared by identical answers)\n", cfg.Judge.Endpoint.Name,
		report.Plural(judged, "answer", "answers"), report.Plural(sent, "request", "requests"))
	for _, l := range lines {
		fmt.Fprintln(stdout, "  "+l)
	}
}
