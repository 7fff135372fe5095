// Package gateci is what CI shows of a gate or a verdict beside the log:
// JUnit cases, a markdown summary for a step summary or a pull-request
// comment, GitHub annotations. Each says what the text report
// (gate.Report.WriteText, the verdict table) says, in the same words.
// [Outputs] writes them for a command (bench, verdict, gate), for a
// broken run too, saying why it is broken.
package gateci

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/report/github"
	"github.com/llmsla/llmsla/harness/report/junit"
)

// JUnitCases are r as JUnit cases, classname the benchmark (or
// scenario × endpoint), name the unit: a regressed or vanished figure is a
// failure carrying the gate's line, an improved one passes saying so, a
// figure not judged (too few runs) and one the tests are blind to (no
// change would be flagged at these sample sizes) are skipped, saying why.
// The unchanged figures, which the report counts without naming, are one
// passing case. The families, notes and warnings go in Output.
func JUnitCases(r *gate.Report) []junit.Case {
	var out []junit.Case
	for _, f := range r.Regressions {
		out = append(out, junit.Case{Classname: f.Benchmark, Name: f.Unit,
			Failures: []junit.Problem{{Message: f.Line("REGRESSED"), Type: "regression", Detail: f.Details()}}})
	}
	for _, f := range r.Vanished {
		out = append(out, junit.Case{Classname: f.Benchmark, Name: f.Unit,
			Failures: []junit.Problem{{Message: r.VanishedLine(f), Type: "vanished"}}})
	}
	for _, f := range r.Improvements {
		out = append(out, junit.Case{Classname: f.Benchmark, Name: f.Unit, Output: f.Line("improved")})
	}
	for _, f := range r.NotJudged {
		out = append(out, junit.Case{Classname: f.Benchmark, Name: f.Unit, Skipped: &junit.Problem{Type: "not-judged",
			Message: fmt.Sprintf("not judged: %d runs in %s, %d in %s, too few to be significant (the figure is missing from the others)", f.N1, r.Base, f.N2, r.New)}})
	}
	for _, s := range r.Sensitivity {
		for _, m := range s.MDE {
			if math.IsInf(m.Change, 1) {
				out = append(out, junit.Case{Classname: s.Group, Name: m.Unit, Skipped: &junit.Problem{Type: "blind",
					Message: fmt.Sprintf("blind: no change, however large, would be flagged at %d+%d requests (record more: -n, -count)", s.Requests[0], s.Requests[1])}})
			}
		}
	}
	out = append(out, junit.Case{Classname: "gate", Name: "unchanged",
		Output: fmt.Sprintf("%d figures neither regressed nor improved beyond their tolerance (%d of them the same everywhere, not tested); the report counts them without naming them", r.Unchanged, r.Constant)})
	return out
}

// JUnitOutput is what the JUnit suite shows beside its cases: the
// families, the notes and the warnings.
func JUnitOutput(r *gate.Report) string {
	var lines []string
	for _, f := range r.Families {
		lines = append(lines, fmt.Sprintf("family %s α=%g, %d tests: %s", f.Name, f.Alpha, f.Tests, f.Covers))
	}
	for _, n := range r.Notes {
		lines = append(lines, "note: "+n)
	}
	for _, w := range r.Warnings {
		lines = append(lines, "warning: "+w)
	}
	return strings.Join(lines, "\n")
}

// Annotations are one error annotation per regressed or vanished figure.
func Annotations(r *gate.Report) []github.Annotation {
	var out []github.Annotation
	for _, f := range r.Regressions {
		out = append(out, github.Annotation{Level: github.Error, Title: "regression", Message: f.Line("REGRESSED")})
	}
	for _, f := range r.Vanished {
		out = append(out, github.Annotation{Level: github.Error, Title: "regression", Message: r.VanishedLine(f)})
	}
	return out
}

// WriteMarkdown writes r for a step summary or a pull-request
// comment: the headline, a table of the figures that regressed, vanished
// or improved, what could not be judged, and the whole text report folded
// under it.
func WriteMarkdown(w io.Writer, r *gate.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", escape.Markdown(r.Headline()))
	type row struct {
		label string
		f     gate.Finding
	}
	var rows []row
	for _, f := range r.Regressions {
		rows = append(rows, row{"**REGRESSED**", f})
	}
	for _, f := range r.Vanished {
		rows = append(rows, row{"**VANISHED**", f})
	}
	for _, f := range r.Improvements {
		rows = append(rows, row{"improved", f})
	}
	if len(rows) > 0 {
		b.WriteString("| | family | benchmark | unit | base → new | change | evidence |\n|:---|:---|:---|:---|---:|---:|:---|\n")
		for _, x := range rows {
			f := x.f
			values, change, evidence := metric.Precise(f.Old)+" → "+metric.Precise(f.New), f.Change(), f.Evidence()
			if x.label == "**VANISHED**" {
				values, change, evidence = metric.Precise(f.Old)+" → –", "–", fmt.Sprintf("in all %d runs of %s, in none of the %d of %s", f.N1, r.Base, f.N2, r.New)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", x.label, f.Family, escape.Markdown(f.Benchmark), escape.Markdown(f.Unit),
				values, change, escape.Markdown(evidence))
		}
		b.WriteString("\n")
	}
	for _, c := range JUnitCases(r) {
		if c.Skipped != nil {
			fmt.Fprintf(&b, "- %s %s: %s\n", escape.Markdown(c.Classname), escape.Markdown(c.Name), escape.Markdown(c.Skipped.Message))
		}
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n<details><summary>the gate's report</summary>\n\n%s\n</details>\n", github.Code(text.String()))
	_, err := io.WriteString(w, b.String())
	return err
}
