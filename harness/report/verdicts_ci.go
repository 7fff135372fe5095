package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report/github"
	"github.com/llmsla/llmsla/harness/report/junit"
)

// The verdicts as CI shows them beside the log: a markdown table for a
// step summary or a pull-request comment, JUnit cases, annotations. Each
// is the same view as Verdicts: the same rows, columns and violation lines.

// VerdictsMarkdown writes the verdict table as markdown (the columns of
// Verdicts), then what each row was checked against and one item per
// violated objective.
func VerdictsMarkdown(w io.Writer, vs []objective.Verdict) {
	var b strings.Builder
	cols := metric.Shown(metric.Columns(), verdictStats(vs))
	levelHead, levelCell := levelColumn(vs)
	head := []string{"scenario", "endpoint", levelHead, "n"}
	for _, c := range cols {
		head = append(head, header(c))
	}
	head = append(head, "verdict")
	fmt.Fprintf(&b, "| %s |\n|", strings.Join(head, " | "))
	for i := range head {
		b.WriteString(map[bool]string{true: ":---|", false: "---:|"}[i < 2])
	}
	b.WriteString("\n")
	for _, v := range vs {
		row := []string{escape.Markdown(v.Scenario), escape.Markdown(v.Endpoint), escape.Markdown(levelCell(v.Level)), count(v.Stats)}
		for _, c := range cols {
			got, _ := c.Of(v.Stats)
			row = append(row, c.Format(got))
		}
		word := verdictWord(v)
		if !v.OK() && v.Search() == "" {
			word = "**" + word + "**"
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(append(row, word), " | "))
	}
	b.WriteString("\n")
	for _, line := range objectiveLines(vs) {
		fmt.Fprintf(&b, "- %s\n", escape.Markdown(line))
	}
	for _, line := range append(IntervalLines(vs), StoppedLines(vs)...) {
		fmt.Fprintf(&b, "- %s\n", escape.Markdown(line))
	}
	if lines := violationLines(vs); len(lines) > 0 {
		b.WriteString("\n**Violated:**\n\n")
		for _, line := range lines {
			fmt.Fprintf(&b, "- %s\n", escape.Markdown(line))
		}
	}
	io.WriteString(w, b.String())
}

// verdictWord is a row's verdict: ok, FAIL (n violated), or for a step of
// a capacity search held or over.
func verdictWord(v objective.Verdict) string {
	switch {
	case v.Search() != "" && v.OK():
		return "held"
	case v.Search() != "":
		return "over"
	case !v.OK():
		return fmt.Sprintf("FAIL (%d)", len(v.Violations)) + cachedNote(v)
	}
	return "ok" + cachedNote(v)
}

// objectiveLines say what each scenario × endpoint was checked against,
// once per distinct set, as Verdicts prints them.
func objectiveLines(vs []objective.Verdict) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vs {
		line := fmt.Sprintf("objectives (%s endpoint=%s): %s", v.Scenario, v.Endpoint, objectiveList(v))
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}

func objectiveList(v objective.Verdict) string {
	if len(v.Objectives) == 0 {
		return "none"
	}
	parts := make([]string, len(v.Objectives))
	for i, th := range v.Objectives {
		parts[i] = th.String()
	}
	return strings.Join(parts, ", ")
}

// violationLines are the lines a failed test prints, one per violated
// objective of the runs the SLA judges (a search's steps beyond the limit
// fail by design): "chat endpoint=prod concurrency=5: ttft p95 712 ms > 600 ms (n=40)".
func violationLines(vs []objective.Verdict) []string {
	var out []string
	for _, v := range vs {
		if v.Search() != "" {
			continue
		}
		for _, viol := range v.Violations {
			out = append(out, fmt.Sprintf("%s: %s", where(v), viol))
		}
	}
	return out
}

// VerdictAnnotations are one error annotation per violated objective.
func VerdictAnnotations(vs []objective.Verdict) []github.Annotation {
	var out []github.Annotation
	for _, line := range violationLines(vs) {
		out = append(out, github.Annotation{Level: github.Error, Title: "SLA violated", Message: line})
	}
	return out
}

// VerdictCases are the verdicts as JUnit cases, one per scenario ×
// endpoint × level: classname "scenario/endpoint", name the level, time
// its measured window, and the level's summary line beside it. A violated
// objective is a failure carrying its line; one that was not measured
// (no successful request to measure it on) an error: the level could not
// be judged on it. A level with no objective is skipped: nothing was
// judged. A capacity search's steps pass, saying held or over. When share
// names a shard ("1/2"), the run is judged when the shards merge: a
// level's failures and errors are written beside it and it is skipped.
func VerdictCases(vs []objective.Verdict, share string) []junit.Case {
	out := make([]junit.Case, 0, len(vs))
	for _, v := range vs {
		level := string(v.Level)
		if level == "" {
			level = "(no level)"
		}
		c := junit.Case{Classname: v.Scenario + "/" + v.Endpoint, Name: level, Time: v.Stats.Wall,
			Output: Line(v.Stats) + "\nobjectives: " + objectiveList(v)}
		switch {
		case v.Search() != "":
			c.Output += "\n" + verdictWord(v) + ": a step of the " + v.Search() + " search (a step over the limit is how the search finds it)"
		case len(v.Objectives) == 0:
			c.Skipped = &junit.Problem{Message: "no objective set: nothing was judged", Type: "no-objective"}
		default:
			for _, viol := range v.Violations {
				p := junit.Problem{Message: viol.String(), Type: "sla", Detail: where(v) + ": " + viol.String()}
				if math.IsNaN(viol.Got) {
					p.Type = "not-measured"
					c.Errors = append(c.Errors, p)
				} else {
					c.Failures = append(c.Failures, p)
				}
			}
		}
		if share != "" && len(c.Failures)+len(c.Errors) > 0 {
			c.Output += "\n" + strings.Join(violationLines([]objective.Verdict{v}), "\n")
			c.Failures, c.Errors = nil, nil
			c.Skipped = &junit.Problem{Message: "shard " + share + ": its share of the run only, judged when the shards' files are merged (llmsla verdict DIR…)", Type: "shard"}
		}
		out = append(out, c)
	}
	return append(out, notApplicableCases(vs)...)
}

// notApplicableCases are a skipped case for each scenario × endpoint the
// verdicts lack because the endpoint's API cannot serve the scenario (an
// embeddings endpoint and a generating scenario, or the other way round,
// as the levels' requests show): CI's report shows them not run and why,
// neither failed nor passed.
func notApplicableCases(vs []objective.Verdict) []junit.Case {
	embeds := map[string]bool{} // scenarioKey+scenario, and endpoint
	judged := map[[2]string]bool{}
	var scenarios, endpoints []string
	for _, v := range vs {
		if !slices.Contains(scenarios, v.Scenario) {
			scenarios = append(scenarios, v.Scenario)
		}
		if !slices.Contains(endpoints, v.Endpoint) {
			endpoints = append(endpoints, v.Endpoint)
		}
		e := v.Stats.Embeds > 0
		embeds[scenarioKey+v.Scenario] = embeds[scenarioKey+v.Scenario] || e
		embeds[v.Endpoint] = embeds[v.Endpoint] || e
		judged[[2]string{v.Scenario, v.Endpoint}] = true
	}
	var out []junit.Case
	for _, sc := range scenarios {
		for _, ep := range endpoints {
			why := notApplicable(embeds[scenarioKey+sc], embeds[ep])
			if judged[[2]string{sc, ep}] || why == "" {
				continue
			}
			out = append(out, junit.Case{Classname: sc + "/" + ep, Name: "not applicable",
				Skipped: &junit.Problem{Message: why + ": not measured", Type: "not-applicable"}})
		}
	}
	return out
}
