package gate

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/report/github"
	"github.com/llmsla/llmsla/harness/report/junit"
)

// The report as CI shows it beside the log: JUnit cases, a markdown
// summary, annotations. Each says what WriteText says, in the same words.

// Headline is the report's first line: "gate FAIL: NEW vs BASE — 1
// regressed, …".
func (r *Report) Headline() string {
	var b strings.Builder
	r.WriteText(&b)
	first, _, _ := strings.Cut(b.String(), "\n")
	return first
}

// JUnitCases are the report as JUnit cases, classname the benchmark (or
// scenario × endpoint), name the unit: a regressed or vanished figure is a
// failure carrying the gate's line, an improved one passes saying so, a
// figure not judged (too few runs) and one the tests are blind to (no
// change would be flagged at these sample sizes) are skipped, saying why.
// The unchanged figures, which the report counts without naming, are one
// passing case. The families, notes and warnings go in Output.
func (r *Report) JUnitCases() []junit.Case {
	var out []junit.Case
	for _, f := range r.Regressions {
		out = append(out, junit.Case{Classname: f.Benchmark, Name: f.Unit,
			Failures: []junit.Problem{{Message: findingLine("REGRESSED", f), Type: "regression", Detail: findingDetail(f)}}})
	}
	for _, f := range r.Vanished {
		out = append(out, junit.Case{Classname: f.Benchmark, Name: f.Unit,
			Failures: []junit.Problem{{Message: r.vanishedLine(f), Type: "vanished"}}})
	}
	for _, f := range r.Improvements {
		out = append(out, junit.Case{Classname: f.Benchmark, Name: f.Unit, Output: findingLine("improved", f)})
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
func (r *Report) JUnitOutput() string {
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

// findingLine is one figure as the text report's line says it:
// "REGRESSED latency chat × sim ttft-p95-ms: 20.1 → 25.3 +25.9% (p=…)".
func findingLine(label string, f Finding) string {
	return fmt.Sprintf("%s %s %s %s: %s → %s %s (%s)", label, f.Family, f.Benchmark, f.Unit, metric.Precise(f.Old), metric.Precise(f.New), delta(f), detail(f))
}

// findingDetail is what the text report writes under a regressed figure:
// its levels, and the cases that newly fail.
func findingDetail(f Finding) string {
	var lines []string
	if len(f.Levels) > 1 {
		lines = append(lines, levelsOf(f.Levels))
	}
	if len(f.Cases) > 0 {
		lines = append(lines, "newly failing: "+cases(f.Cases, 5))
	}
	return strings.Join(lines, "\n")
}

func (r *Report) vanishedLine(f Finding) string {
	return fmt.Sprintf("VANISHED %s %s: in all %d runs of %s, in none of the %d of %s (a check that no longer runs? -allow-missing lets it pass)",
		f.Benchmark, f.Unit, f.N1, r.Base, f.N2, r.New)
}

// Annotations are one error annotation per regressed or vanished figure.
func (r *Report) Annotations() []github.Annotation {
	var out []github.Annotation
	for _, f := range r.Regressions {
		out = append(out, github.Annotation{Level: github.Error, Title: "regression", Message: findingLine("REGRESSED", f)})
	}
	for _, f := range r.Vanished {
		out = append(out, github.Annotation{Level: github.Error, Title: "regression", Message: r.vanishedLine(f)})
	}
	return out
}

// WriteMarkdown writes the report for a step summary or a pull-request
// comment: the headline, a table of the figures that regressed, vanished
// or improved, what could not be judged, and the whole text report folded
// under it.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", escape.Markdown(r.Headline()))
	type row struct {
		label string
		f     Finding
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
			values, change, evidence := metric.Precise(f.Old)+" → "+metric.Precise(f.New), delta(f), detail(f)
			if x.label == "**VANISHED**" {
				values, change, evidence = metric.Precise(f.Old)+" → –", "–", fmt.Sprintf("in all %d runs of %s, in none of the %d of %s", f.N1, r.Base, f.N2, r.New)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", x.label, f.Family, escape.Markdown(f.Benchmark), escape.Markdown(f.Unit),
				values, change, escape.Markdown(evidence))
		}
		b.WriteString("\n")
	}
	for _, c := range r.JUnitCases() {
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
