package judge

import (
	"fmt"
	"github.com/llmsla/llmsla/harness/judge/rubric"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
)

// Agreement is how one judge's verdicts agree with another's — a person's
// labels, or a second judge's — on the same answers, pass against fail. A
// judgment that failed counts as a fail (fail closed) and is counted apart
// (NoVerdict), so that a judge that cannot answer cannot agree by silence.
type Agreement struct {
	N         int
	NoVerdict int // of the judged side's judgments, those that failed
	Agree     int
	// Confusion[i][j]: the reference side's verdict i (0 pass, 1 fail)
	// against the judged side's j (0 pass, 1 fail, 2 no verdict).
	Confusion [2][3]int
	// Accuracy is Agree / N; Kappa is Cohen's kappa, agreement corrected
	// for what chance gives with these two sides' pass rates: NaN when
	// both pass (or fail) everything, where chance explains it all.
	Accuracy, Kappa float64
}

// verdictOf is a side's verdict on one answer: 0 pass, 1 fail, 2 none.
type verdictOf int

const (
	vPass verdictOf = iota
	vFail
	vNone
)

func ofResult(r Result) verdictOf {
	switch {
	case r.Err != nil:
		return vNone
	case r.Pass:
		return vPass
	}
	return vFail
}

// Compare is the agreement of results (a judge's, in the labels' order)
// with the labels.
func Compare(labels []rubric.Label, results []Result) Agreement {
	ref := make([]verdictOf, len(labels))
	for i, l := range labels {
		ref[i] = vFail
		if l.Pass {
			ref[i] = vPass
		}
	}
	return agreement(ref, verdicts(results))
}

// Between is the agreement of judge b's results with judge a's, on the
// same asks: a failed judgment of a counts as its fail.
func Between(a, b []Result) Agreement {
	ref := verdicts(a)
	for i, v := range ref {
		if v == vNone {
			ref[i] = vFail
		}
	}
	return agreement(ref, verdicts(b))
}

func verdicts(rs []Result) []verdictOf {
	out := make([]verdictOf, len(rs))
	for i, r := range rs {
		out[i] = ofResult(r)
	}
	return out
}

func agreement(ref, got []verdictOf) Agreement {
	a := Agreement{N: len(ref)}
	for i := range ref {
		g := got[i]
		a.Confusion[ref[i]][g]++
		if g == vNone {
			a.NoVerdict++
			g = vFail
		}
		if g == ref[i] {
			a.Agree++
		}
	}
	a.Accuracy, a.Kappa = math.NaN(), math.NaN()
	if a.N == 0 {
		return a
	}
	n := float64(a.N)
	a.Accuracy = float64(a.Agree) / n
	refPass := float64(a.Confusion[0][0]+a.Confusion[0][1]+a.Confusion[0][2]) / n
	gotPass := float64(a.Confusion[0][0]+a.Confusion[1][0]) / n
	chance := refPass*gotPass + (1-refPass)*(1-gotPass)
	if chance < 1 {
		a.Kappa = (a.Accuracy - chance) / (1 - chance)
	}
	return a
}

// Lines are the agreement as a report shows it: the figures, then the
// confusion table, ref naming the reference side ("labels", a judge).
func (a Agreement) Lines(ref, judged string) []string {
	lines := []string{fmt.Sprintf("%s vs %s: %d answers, accuracy %s, kappa %s", judged, ref, a.N, metric.Pct(a.Accuracy), kappaText(a.Kappa))}
	if a.NoVerdict > 0 {
		lines[0] += fmt.Sprintf(", %d without a verdict (counted as fail)", a.NoVerdict)
	}
	corner := ref + " \\ " + judged
	w := len([]rune(corner))
	lines = append(lines,
		fmt.Sprintf("  %-*s  %8s %8s %10s", w, corner, "pass", "fail", "no verdict"),
		fmt.Sprintf("  %-*s  %8d %8d %10d", w, "pass", a.Confusion[0][0], a.Confusion[0][1], a.Confusion[0][2]),
		fmt.Sprintf("  %-*s  %8d %8d %10d", w, "fail", a.Confusion[1][0], a.Confusion[1][1], a.Confusion[1][2]))
	return lines
}

func kappaText(k float64) string {
	if math.IsNaN(k) {
		return "undefined (every verdict on one side alike)"
	}
	return fmt.Sprintf("%.3f", k)
}

// LengthBias is the correlation of a judge's scores with the answers'
// lengths, and of the labels' with the same lengths, for comparison: a
// judge that favours long answers shows r well above the labels'.
type LengthBias struct {
	N      int     // answers with a verdict (and a score)
	R      float64 // Pearson r, words vs the judge's score; NaN below 3 answers or with no spread
	LabelR float64 // words vs the labels (their score, else 1 pass / 0 fail)
}

// LengthOf measures the length bias of results on labels.
func LengthOf(labels []rubric.Label, results []Result) LengthBias {
	var words, scores, lwords, lscores []float64
	for i, l := range labels {
		w := float64(len(strings.Fields(l.Answer)))
		ls := 0.0
		switch {
		case l.Score != nil:
			ls = *l.Score
		case l.Pass:
			ls = 1
		}
		lwords, lscores = append(lwords, w), append(lscores, ls)
		if results[i].Err == nil {
			words, scores = append(words, w), append(scores, results[i].Score)
		}
	}
	return LengthBias{N: len(words), R: pearson(words, scores), LabelR: pearson(lwords, lscores)}
}

// String is the bias on one line.
func (b LengthBias) String() string {
	r := func(v float64) string {
		if math.IsNaN(v) {
			return "undefined"
		}
		return fmt.Sprintf("%+.2f", v)
	}
	return fmt.Sprintf("length bias: answer words vs the judge's score r = %s over %d answers (vs the labels: r = %s)", r(b.R), b.N, r(b.LabelR))
}

// pearson is the correlation of x and y; NaN below 3 points or when
// either has no spread.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	if len(x) < 3 {
		return math.NaN()
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
