package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/judge/rubric"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
)

const judgeUsage = `usage: llmsla judge calibrate -labels FILE -rubric FILE [flags]

Holds a judge to human labels: asks the judge (the SLA file's judge:
endpoint, or -judge) about every labelled answer under the rubric, and
reports its accuracy, Cohen's kappa and confusion table against the
labels, how its scores follow the answers' length, and with -vs its
agreement with a second judge. Judgments come from, and go to, the
judge's cache (-rejudge asks them all again).

A labelled file is JSON lines: {"id", "question", "reference", "answer",
"label"}, label "pass", "fail" or a score on the rubric's scale.

Exit codes: 0 the judge meets judge_agreement_min (or none is set), 1 its
kappa is below it (or undefined), 2 unusable input.

`

// calibrateRun is what llmsla judge calibrate's flags ask for.
type calibrateRun struct {
	labels, rubric, judgeName, vs string
	rejudge                       bool
	agreementMin                  float64
}

func runJudge(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "calibrate" {
		fmt.Fprint(stderr, judgeUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return exitOK
		}
		return exitBroken
	}
	fs := flag.NewFlagSet("judge calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &calibrateRun{}
	fs.StringVar(&f.labels, "labels", "", "the labelled answers (JSON lines)")
	fs.StringVar(&f.rubric, "rubric", "", "the rubric the answers are judged under (a YAML file)")
	fs.StringVar(&f.judgeName, "judge", "", "the judge endpoint (default: the SLA file's judge: endpoint)")
	fs.StringVar(&f.vs, "vs", "", "a second judge endpoint, compared with the first and with the labels")
	fs.BoolVar(&f.rejudge, "rejudge", false, "ask the judges about every answer again, reading nothing from the cache")
	fs.Float64Var(&f.agreementMin, "agreement-min", math.NaN(), "the least kappa with the labels (default: the SLA file's judge_agreement_min, else none)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), judgeUsage); fs.PrintDefaults() }
	if err := fs.Parse(args[1:]); err != nil {
		return parseFailed(err)
	}
	if f.labels == "" || f.rubric == "" || fs.NArg() > 0 || (!math.IsNaN(f.agreementMin) && (f.agreementMin < -1 || f.agreementMin > 1)) {
		fmt.Fprintf(stderr, "llmsla judge calibrate: want -labels FILE and -rubric FILE, no arguments, and -agreement-min from -1 to 1 (got %q, %q, %q, %v)\n", f.labels, f.rubric, fs.Args(), f.agreementMin)
		return exitBroken
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
	}
	stdout, stderr, _, done := redacting(cfg, stdout, stderr)
	defer done()
	ctx, stop := interrupts()
	defer stop()
	code, err := f.calibrate(ctx, cfg, stdout)
	if err != nil {
		err = why(ctx, err)
		fmt.Fprintf(stderr, "llmsla judge calibrate: %v\n", err)
	}
	return code
}

// calibrate loads the rubric and labels (every mistake before any
// request), asks the judges and prints their agreement.
func (f *calibrateRun) calibrate(ctx context.Context, cfg *config.Config, stdout io.Writer) (int, error) {
	r, err := rubric.Load(f.rubric)
	if err != nil {
		return exitBroken, err
	}
	labels, err := rubric.LoadLabels(f.labels, r)
	if err != nil {
		return exitBroken, err
	}
	s, err := session.New(cfg, session.Run{Rejudge: f.rejudge}, session.Options{})
	if err != nil {
		return exitBroken, err
	}
	defer s.Close()
	first, err := f.ask(ctx, s, f.judgeName, r, labels, stdout)
	if err != nil {
		return exitBroken, err
	}
	a := judge.Compare(labels, first.results)
	for _, l := range a.Lines("labels", first.name) {
		fmt.Fprintln(stdout, l)
	}
	fmt.Fprintln(stdout, judge.LengthOf(labels, first.results))
	if f.vs != "" {
		second, err := f.ask(ctx, s, f.vs, r, labels, stdout)
		if err != nil {
			return exitBroken, err
		}
		for _, l := range judge.Compare(labels, second.results).Lines("labels", second.name) {
			fmt.Fprintln(stdout, l)
		}
		fmt.Fprintln(stdout, judge.LengthOf(labels, second.results))
		for _, l := range judge.Between(first.results, second.results).Lines(first.name, second.name) {
			fmt.Fprintln(stdout, l)
		}
	}
	return f.objective(cfg, a.Kappa, stdout), nil
}

// judged is one judge's results on the labels.
type judged struct {
	name    string
	results []judge.Result
}

// ask asks the judge named ("" the configuration's) about every labelled
// answer, and says how many it was sent and how many came from its cache.
func (f *calibrateRun) ask(ctx context.Context, s *session.Session, name string, r *rubric.Rubric, labels []rubric.Label, stdout io.Writer) (judged, error) {
	jd, note, err := s.JudgeOn(ctx, name)
	if err != nil {
		return judged{}, err
	}
	asks := make([]judge.Ask, len(labels))
	for i, l := range labels {
		asks[i] = judge.Ask{Rubric: r, Item: l.Item}
	}
	var sent []sample.Sample
	results := jd.Judge(ctx, asks, func(smp *sample.Sample, _ judge.Ask) { sent = append(sent, *smp) })
	if err := ctx.Err(); err != nil {
		return judged{}, err // judgments cut short agree with nothing
	}
	cached := 0
	for _, res := range results {
		if res.Cached {
			cached++
		}
	}
	fmt.Fprintf(stdout, "judge %s (model %s) on %s under %s: %d labelled answers, %d from the cache\n", jd.Name, jd.Identity.Model, f.labels, r.Where(), len(labels), cached)
	for _, acct := range judge.Summarize(sent) {
		fmt.Fprintln(stdout, "  "+acct.String())
	}
	if note != "" {
		fmt.Fprintln(stdout, "  note: "+note)
	}
	if err := jd.Cache.Err(); err != nil {
		fmt.Fprintf(stdout, "  warning: %v: the judgments were made, but the next run asks them again\n", err)
	}
	return judged{jd.Name, results}, nil
}

// objective checks judge_agreement_min (the flag's, else the file's)
// against the kappa: 0 met or none set, 1 below it or undefined.
func (f *calibrateRun) objective(cfg *config.Config, kappa float64, stdout io.Writer) int {
	least := f.agreementMin
	if math.IsNaN(least) && cfg.Judge != nil && cfg.Judge.AgreementMin != nil {
		least = *cfg.Judge.AgreementMin
	}
	if math.IsNaN(least) {
		fmt.Fprintln(stdout, "judge_agreement_min: not set (-agreement-min, or judge: {judge_agreement_min: …}): nothing to hold the judge to")
		return exitOK
	}
	if math.IsNaN(kappa) || kappa < least {
		fmt.Fprintf(stdout, "FAIL: judge_agreement_min %g: kappa %s\n", least, kappaWords(kappa))
		return exitViolated
	}
	fmt.Fprintf(stdout, "PASS: judge_agreement_min %g: kappa %.3f\n", least, kappa)
	return exitOK
}

func kappaWords(k float64) string {
	if math.IsNaN(k) {
		return "undefined (every verdict on one side alike), which meets no minimum"
	}
	return fmt.Sprintf("%.3f is below it", k)
}

// judgeLines prints, after a bench's verdicts, what the judge did: the
// answers judged (from the samples), and its own requests from their
// file beside them — latency, failures, tokens and cost — none of which
// is in any measured figure. Nothing without a judge: block.
func judgeLines(cfg *config.Config, samplesPath, judgePath string, stdout io.Writer) {
	if cfg.Judge == nil {
		return
	}
	answers, err := sample.Read(samplesPath)
	if err != nil {
		return // the verdicts above said so
	}
	judgedN := 0
	for _, s := range answers {
		if s.Measured() && s.Quality != nil && s.Quality.JudgeChecked {
			judgedN++
		}
	}
	sent, err := sample.Read(judgePath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "judge %s: its requests' record %s: %v\n", cfg.Judge.Endpoint.Name, judgePath, err)
		return
	}
	fmt.Fprintf(stdout, "\njudge %s: %d answers judged, %d requests sent (the rest from the cache or shared by identical answers)\n", cfg.Judge.Endpoint.Name, judgedN, len(sent))
	for _, a := range judge.Summarize(sent) {
		line := "  " + a.String()
		if p, ok := cfg.Prices[a.Judge]; ok {
			c := report.CostOf(sent, nil, &p)
			if !math.IsNaN(c.PerK) {
				line += fmt.Sprintf("; cost %s %s", report.Money(c.PerK*float64(c.Priced)/1000), c.Currency)
			}
		}
		fmt.Fprintln(stdout, line)
	}
}
