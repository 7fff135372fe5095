package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report/junit"
	"github.com/llmsla/llmsla/harness/report/junit/junittest"
	"github.com/llmsla/llmsla/harness/sample"
)

// ciVerdicts judges four levels of chat: one that meets its objectives,
// one too slow, one whose every request failed (its latencies not
// measured), and a capacity-search step over the limit; the endpoint's
// name is hostile (a cell break, a newline, a tag).
func ciVerdicts(t testing.TB) []objective.Verdict {
	t.Helper()
	const ep = "prod|x\n<b>"
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	var samples []sample.Sample
	add := func(level sample.Level, ttft time.Duration, fail bool) {
		for i := range 10 {
			s := sample.Sample{Scenario: "chat", Endpoint: ep, Model: "m", Level: level, Run: string(level), Seq: i,
				Start: t0.Add(time.Duration(i) * time.Second), TTFT: ttft, TTFA: ttft, Total: ttft + 50*time.Millisecond,
				OutputTokens: 10, Finish: "stop"}
			if fail {
				s.Fail(&sample.RequestError{Kind: sample.KindConnRefused})
			}
			samples = append(samples, s)
		}
	}
	add("concurrency=1", 100*time.Millisecond, false)
	add("concurrency=5", 900*time.Millisecond, false)
	add("concurrency=10", 0, true)
	add("concurrency=20/search=capacity", 900*time.Millisecond, false)
	sla := objective.MustParse(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01})
	return objective.Evaluate(samples, func(string, string) objective.Objectives { return sla })
}

// TestVerdictsMarkdown: one row per verdict, each with the header's cells
// (a | or newline in a name would add cells or rows), the failing rows
// bold, every violated objective listed under the table.
func TestVerdictsMarkdown(t *testing.T) {
	vs := ciVerdicts(t)
	var b strings.Builder
	VerdictsMarkdown(&b, vs)
	md := b.String()
	cell := regexp.MustCompile(`(^|[^\\])\|`)
	var rows []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "|") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 2+len(vs) {
		t.Fatalf("%d table lines, want the header, its rule and %d rows:\n%s", len(rows), len(vs), md)
	}
	want := len(cell.FindAllString(rows[0], -1))
	for _, r := range rows[1:] {
		if got := len(cell.FindAllString(r, -1)); got != want {
			t.Errorf("row has %d cell borders, the header %d: %s", got, want, r)
		}
	}
	if regexp.MustCompile(`(^|[^\\])<b>`).MatchString(md) {
		t.Error("a tag from the endpoint's name is written raw")
	}
	for _, want := range []string{"| **FAIL (1)** |", "| **FAIL (2)** |", "| over |", "| ok |",
		`- chat endpoint=prod\|x\\n\<b> concurrency=5: ttft p95 900 ms > 600 ms (n=10)`,
		"objectives (chat endpoint=prod"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestVerdictsJUnit: a case per level, a failure per violated objective,
// an error for one not measured, the search step passing, and the whole
// valid against the schema; a shard's cases are skipped, their lines kept.
func TestVerdictsJUnit(t *testing.T) {
	vs := ciVerdicts(t)
	write := func(share string) []byte {
		var buf bytes.Buffer
		doc := junit.Suites{Name: "llmsla", Suites: []junit.Suite{{Name: "verdicts", Cases: VerdictCases(vs, share)}}}
		if err := junit.Write(&buf, doc, nil); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	t.Run("run", func(t *testing.T) {
		d := junittest.Validate(t, write(""))
		cases := d.Suites[0].Cases
		if len(cases) != 4 {
			t.Fatalf("%d cases, want 4", len(cases))
		}
		byName := map[string]junittest.Case{}
		for _, c := range cases {
			byName[c.Name] = c
			if c.Classname != "chat/prod|x\n<b>" {
				t.Errorf("classname %q", c.Classname)
			}
		}
		if c := byName["concurrency=1"]; len(c.Failures)+len(c.Errors) > 0 || c.Skipped != nil {
			t.Errorf("the level that met its objectives does not pass: %+v", c)
		}
		if c := byName["concurrency=5"]; len(c.Failures) != 1 || c.Failures[0].Message != "ttft p95 900 ms > 600 ms (n=10)" || c.Failures[0].Type != "sla" {
			t.Errorf("the slow level: %+v", c)
		}
		c := byName["concurrency=10"]
		if len(c.Errors) == 0 || !strings.Contains(c.Errors[0].Message, "not measured") || len(c.Failures) == 0 ||
			!strings.Contains(c.Failures[0].Message, "error rate 100% > 1%") {
			t.Errorf("the level whose requests all failed: want an error (not measured) and a failure (error rate): %+v", c)
		}
		if c := byName["concurrency=20/search=capacity"]; len(c.Failures)+len(c.Errors) > 0 || !strings.Contains(c.Output, "over: a step of the capacity search") {
			t.Errorf("the search step: %+v", c)
		}
		if d.Failures != 1 || d.Errors != 1 {
			t.Errorf("failures=%d errors=%d, want 1 and 1", d.Failures, d.Errors)
		}
	})
	t.Run("shard", func(t *testing.T) {
		d := junittest.Validate(t, write("1/2"))
		if d.Failures+d.Errors != 0 || d.Suites[0].Skipped != 2 {
			t.Errorf("a shard's share: failures=%d errors=%d skipped=%d, want 0, 0, 2", d.Failures, d.Errors, d.Suites[0].Skipped)
		}
		if c := d.Suites[0].Cases[1]; !strings.Contains(c.Output, "ttft p95 900 ms > 600 ms") {
			t.Errorf("the shard's violation is not said beside its case: %q", c.Output)
		}
	})
}

// TestVerdictAnnotations: one error annotation per violated objective of
// the runs the SLA judges, none for a search step.
func TestVerdictAnnotations(t *testing.T) {
	as := VerdictAnnotations(ciVerdicts(t))
	if len(as) != 3 { // concurrency=5: ttft; concurrency=10: ttft (not measured), error rate
		t.Fatalf("%d annotations, want 3: %+v", len(as), as)
	}
	for _, a := range as {
		if a.Level != "error" || strings.Contains(a.Message, "search=") || strings.ContainsAny(a.String(), "\n\r") {
			t.Errorf("annotation %q", a.String())
		}
	}
}

// TestVerdictCasesNotApplicable: beside the levels judged, a JUnit case
// is skipped, saying why, for each scenario × endpoint the verdicts lack
// because one embeds and the other generates; a generating scenario
// another generating endpoint did not run has none (it is not this
// rule's to excuse).
func TestVerdictCasesNotApplicable(t *testing.T) {
	level := func(sc, ep string, inputs int) objective.Verdict {
		ss := make([]sample.Sample, 4)
		for i := range ss {
			ss[i] = sample.Sample{Scenario: sc, Endpoint: ep, Level: "concurrency=1", Seq: i, Total: time.Millisecond, Inputs: inputs, Finish: "stop"}
		}
		return objective.Judge(ss, objective.MustParse(map[string]float64{"error_rate_max": 0}))
	}
	cases := VerdictCases([]objective.Verdict{level("chat", "a", 0), level("summary", "b", 0), level("embeddings", "emb", 3)}, "")
	skipped := map[string]string{}
	for _, c := range cases {
		if c.Skipped != nil {
			skipped[c.Classname] = c.Skipped.Type + ": " + c.Skipped.Message
		}
	}
	assert.Equal(t, map[string]string{
		"chat/emb":     "not-applicable: not applicable: the scenario generates text; the endpoint embeds: not measured",
		"summary/emb":  "not-applicable: not applicable: the scenario generates text; the endpoint embeds: not measured",
		"embeddings/a": "not-applicable: not applicable: the scenario embeds; the endpoint generates text: not measured",
		"embeddings/b": "not-applicable: not applicable: the scenario embeds; the endpoint generates text: not measured",
	}, skipped, "chat/b and summary/a are not excused")
}
