package gateci

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report/junit"
	"github.com/llmsla/llmsla/harness/report/junit/junittest"
)

// ciReport is a report with a figure of every kind: one regressed (with
// its levels and a newly failing case), one improved, one vanished, one
// not judged, one the tests are blind to, and unchanged ones; names hold
// a cell break and a newline.
func ciReport() *gate.Report {
	tol := gate.Tolerance{Rel: 0.1, Abs: 1}
	return &gate.Report{Base: "golden/baseline.txt", New: "results/latest.txt", Compared: 5, Unchanged: 3, Constant: 1,
		Families: []gate.Family{{Name: gate.FamilyLatency, Alpha: 0.05, Tests: 3, Covers: "per request"}},
		Regressions: []gate.Finding{{Benchmark: "chat × prod|x\ny", Unit: "ttft-p95-ms", Family: gate.FamilyLatency, Old: 20.1, New: 25.3,
			PAdj: 0.001, N1: 200, N2: 200, Requests: true, Tolerance: tol,
			Levels: []gate.LevelChange{{Level: "concurrency=1", Old: 20, New: 25}, {Level: "concurrency=5", Old: 21, New: 26}},
			Cases:  []gate.CaseChange{{Case: "c7", Bad1: 0, N1: 10, Bad2: 4, N2: 10}}}},
		Improvements: []gate.Finding{{Benchmark: "chat × prod", Unit: "out-tok/s", Family: gate.FamilyRuns, Old: 100, New: 130, PAdj: 0.01, N1: 10, N2: 10, Tolerance: tol}},
		Vanished:     []gate.Finding{{Benchmark: "Extraction/endpoint=prod", Unit: "schema-valid-%", N1: 10, N2: 10}},
		NotJudged:    []gate.Finding{{Benchmark: "Batch/endpoint=prod", Unit: "out-tok/s", N1: 10, N2: 2}},
		Sensitivity:  []gate.Sensitivity{{Group: "soak × prod", Requests: [2]int{3, 3}, MDE: []gate.MDE{{Unit: "ttft-p99-ms", Change: math.Inf(1)}, {Unit: "ttft-p50-ms", Change: 0.2, Relative: true}}}},
		Warnings:     []string{"a side is a run sent by shards"},
	}
}

// TestGateJUnit: a case per figure the report names, a regression and a
// vanished figure failing with the gate's line, the not judged and the
// blind skipped saying why, and the document valid against the schema.
func TestGateJUnit(t *testing.T) {
	rep := ciReport()
	var buf bytes.Buffer
	doc := junit.Suites{Name: "llmsla gate", Suites: []junit.Suite{{Name: "gate", Cases: JUnitCases(rep), Output: JUnitOutput(rep)}}}
	if err := junit.Write(&buf, doc, nil); err != nil {
		t.Fatal(err)
	}
	d := junittest.Validate(t, buf.Bytes())
	s := d.Suites[0]
	if s.Tests != 6 || s.Failures != 2 || s.Skipped != 2 || s.Errors != 0 {
		t.Errorf("tests=%d failures=%d skipped=%d errors=%d, want 6, 2, 2, 0", s.Tests, s.Failures, s.Skipped, s.Errors)
	}
	c := s.Cases[0]
	if c.Classname != "chat × prod|x\ny" || c.Name != "ttft-p95-ms" || len(c.Failures) != 1 {
		t.Fatalf("first case %+v, want the regression", c)
	}
	for _, want := range []string{"REGRESSED latency", "20.1 → 25.3", "+25.9%", "p=0.001 n=200+200 requests", "tolerance 10% and 1"} {
		if !strings.Contains(c.Failures[0].Message, want) {
			t.Errorf("regression message %q lacks %q", c.Failures[0].Message, want)
		}
	}
	if !strings.Contains(c.Failures[0].Detail, "newly failing: c7 (0/10 → 4/10 failed)") {
		t.Errorf("regression detail %q", c.Failures[0].Detail)
	}
	if f := s.Cases[1].Failures; len(f) != 1 || !strings.HasPrefix(f[0].Message, "VANISHED Extraction/endpoint=prod schema-valid-%") {
		t.Errorf("vanished case %+v", s.Cases[1])
	}
	if sk := s.Cases[3].Skipped; sk == nil || !strings.HasPrefix(sk.Message, "not judged: 10 runs in golden/baseline.txt, 2 in") {
		t.Errorf("not judged case %+v", s.Cases[3])
	}
	if sk := s.Cases[4].Skipped; s.Cases[4].Name != "ttft-p99-ms" || sk == nil || !strings.HasPrefix(sk.Message, "blind:") {
		t.Errorf("blind case %+v", s.Cases[4])
	}
	if !strings.Contains(s.Output, "warning: a side is a run sent by shards") {
		t.Errorf("suite output %q", s.Output)
	}
}

// TestGateMarkdown: the headline, a row per regressed, vanished and
// improved figure with the header's cells, what was not judged, and the
// text report folded in a block nothing in it can close.
func TestGateMarkdown(t *testing.T) {
	rep := ciReport()
	var b strings.Builder
	if err := WriteMarkdown(&b, rep); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.HasPrefix(md, "### gate FAIL: results/latest.txt vs golden/baseline.txt — 1 regressed, 1 vanished") {
		t.Errorf("headline: %s", md[:min(len(md), 200)])
	}
	var rows []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| |") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "| **REGRESSED** | latency | chat × prod\\|x\\\\ny | ttft-p95-ms | 20.1 → 25.3 | +25.9% |") ||
		!strings.HasPrefix(rows[1], "| **VANISHED** ") || !strings.HasPrefix(rows[2], "| improved ") {
		t.Errorf("rows:\n%s", strings.Join(rows, "\n"))
	}
	for _, want := range []string{"- Batch/endpoint=prod out-tok/s: not judged:", "- soak × prod ttft-p99-ms: blind:", "<details>", "```text\ngate FAIL"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestGateAnnotations: an error per regressed or vanished figure, none for
// the improved one.
func TestGateAnnotations(t *testing.T) {
	as := Annotations(ciReport())
	if len(as) != 2 || !strings.HasPrefix(as[0].Message, "REGRESSED latency") || !strings.HasPrefix(as[1].Message, "VANISHED") {
		t.Errorf("annotations %+v", as)
	}
}

// TestGateJUnitOnTestdata: a real comparison (testdata/new.txt has
// ttft-p95-ms 20% higher) gives a failing case per regressed figure.
func TestGateJUnitOnTestdata(t *testing.T) {
	rep, err := gate.Gate(recording.File("../testdata/base.txt"), recording.File("../testdata/new.txt"), gate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var failing []string
	for _, c := range JUnitCases(rep) {
		if len(c.Failures) > 0 {
			failing = append(failing, c.Classname+" "+c.Name)
		}
	}
	if len(failing) != len(rep.Regressions) || len(failing) == 0 {
		t.Errorf("failing cases %v, regressions %d", failing, len(rep.Regressions))
	}
	for _, f := range failing {
		if !strings.HasSuffix(f, " ttft-p95-ms") {
			t.Errorf("failing case %q is not ttft-p95-ms", f)
		}
	}
}
