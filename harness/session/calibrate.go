package session

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/judge/rubric"
	"github.com/llmsla/llmsla/harness/sample"
)

// Calibration is one llmsla judge calibrate: a judge held to labelled
// answers under a rubric, and with Vs to a second judge.
type Calibration struct {
	Labels, Rubric string // the files
	Judge, Vs      string // endpoint names ("" the SLA file's judge; "" no second)
	Rejudge        bool
	// AgreementMin is the least kappa with the labels (NaN: the SLA
	// file's judge_agreement_min, else none).
	AgreementMin float64
}

// Calibrate loads the rubric and the labels (every mistake before any
// request), asks the judges about every labelled answer through the
// judge's cache, writes their agreement with the labels and each other
// to w, and says whether the first meets the least agreement: met (or no
// minimum set) or not (below it, or undefined).
func Calibrate(ctx context.Context, cfg *config.Config, c Calibration, w io.Writer) (met bool, err error) {
	r, err := rubric.Load(c.Rubric)
	if err != nil {
		return false, err
	}
	labels, err := rubric.LoadLabels(c.Labels, r)
	if err != nil {
		return false, err
	}
	s, err := New(cfg, Run{Rejudge: c.Rejudge}, Options{})
	if err != nil {
		return false, err
	}
	defer s.Close()
	ask := func(name string) (string, []judge.Result, error) {
		jd, note, err := s.JudgeOn(ctx, name)
		if err != nil {
			return "", nil, err
		}
		asks := make([]judge.Ask, len(labels))
		for i, l := range labels {
			asks[i] = judge.Ask{Rubric: r, Item: l.Item}
		}
		var sent []sample.Sample
		results := jd.Judge(ctx, asks, func(smp *sample.Sample, _ judge.Ask) { sent = append(sent, *smp) })
		if err := ctx.Err(); err != nil {
			return "", nil, err // judgments cut short agree with nothing
		}
		cached := 0
		for _, res := range results {
			if res.Cached {
				cached++
			}
		}
		fmt.Fprintf(w, "judge %s (model %s) on %s under %s: %d labelled answers, %d from the cache\n", jd.Name, jd.Identity.Model, c.Labels, r.Where(), len(labels), cached)
		for _, acct := range judge.Summarize(sent) {
			fmt.Fprintln(w, "  "+acct.String())
		}
		if note != "" {
			fmt.Fprintln(w, "  note: "+note)
		}
		if err := jd.Cache.Err(); err != nil {
			fmt.Fprintf(w, "  warning: %v: the judgments were made, but the next run asks them again\n", err)
		}
		for _, l := range judge.Compare(labels, results).Lines("labels", jd.Name) {
			fmt.Fprintln(w, l)
		}
		fmt.Fprintln(w, judge.LengthOf(labels, results))
		return jd.Name, results, nil
	}
	first, results, err := ask(c.Judge)
	if err != nil {
		return false, err
	}
	if c.Vs != "" {
		second, vs, err := ask(c.Vs)
		if err != nil {
			return false, err
		}
		for _, l := range judge.Between(results, vs).Lines(first, second) {
			fmt.Fprintln(w, l)
		}
	}
	return agreement(cfg, c.AgreementMin, judge.Compare(labels, results).Kappa, w), nil
}

// agreement checks judge_agreement_min (least, else the SLA file's)
// against the kappa, and says so.
func agreement(cfg *config.Config, least, kappa float64, w io.Writer) bool {
	if math.IsNaN(least) && cfg.Judge != nil && cfg.Judge.AgreementMin != nil {
		least = *cfg.Judge.AgreementMin
	}
	switch {
	case math.IsNaN(least):
		fmt.Fprintln(w, "judge_agreement_min: not set (-agreement-min, or judge: {judge_agreement_min: …}): nothing to hold the judge to")
		return true
	case math.IsNaN(kappa):
		fmt.Fprintf(w, "FAIL: judge_agreement_min %g: kappa undefined (every verdict on one side alike), which meets no minimum\n", least)
		return false
	case kappa < least:
		fmt.Fprintf(w, "FAIL: judge_agreement_min %g: kappa %.3f is below it\n", least, kappa)
		return false
	}
	fmt.Fprintf(w, "PASS: judge_agreement_min %g: kappa %.3f\n", least, kappa)
	return true
}
