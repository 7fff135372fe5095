package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/report/github"
	"github.com/llmsla/llmsla/harness/report/junit/junittest"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
)

// TestMain runs the tests outside GitHub Actions whatever runs them: a
// test's verdicts must not land in the job's step summary or annotate the
// pull request. The tests of those outputs set the variables themselves.
func TestMain(m *testing.M) {
	os.Unsetenv(github.SummaryEnv)
	os.Unsetenv("GITHUB_ACTIONS")
	os.Exit(m.Run())
}

// ciEnv points the step summary at a fresh file, turns GitHub Actions'
// annotations on or off, and returns the summary's path.
func ciEnv(t *testing.T, actions bool) string {
	t.Helper()
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv(github.SummaryEnv, summary)
	t.Setenv("GITHUB_ACTIONS", map[bool]string{true: "true", false: ""}[actions])
	return summary
}

// recordChat writes a samples file of chat on the simulator's endpoint,
// 20 requests at concurrency 1 of which failed ones fail, the model
// named model, with a results file beside it naming commit abc123.
func recordChat(t *testing.T, failed int, model string) string {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	for i := range 20 {
		s := sample.Sample{Scenario: "chat", Endpoint: "sim", Model: model, Level: "concurrency=1", Run: "r", Seq: i,
			Start: t0.Add(time.Duration(i) * 100 * time.Millisecond), TTFT: 20 * time.Millisecond, TTFA: 20 * time.Millisecond,
			Total: 30 * time.Millisecond, OutputTokens: 3, Finish: "stop"}
		if i < failed {
			s.ErrKind, s.Finish, s.Err = sample.KindRateLimited, "rate_limited", "rate_limited (HTTP 429)"
		}
		line, _ := json.Marshal(s)
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(dir, "20260506T070809Z.samples.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "20260506T070809Z.txt"), []byte("commit: abc123\ndate: x\nUnit ttft-p50-ms better=lower\nendpoint.sim.model: sim\nendpoint.sim.host: built-in simulator\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVerdictCIOutputs: llmsla verdict -junit on a run that missed its
// error-rate objective writes a JUnit file that validates, fails the
// level with the objective's line and names the run (commit, config,
// endpoint, model, host); under GitHub Actions it appends the verdict
// table to the step summary and annotates the violation; a secret of
// the environment is in none of them.
func TestVerdictCIOutputs(t *testing.T) {
	simEnv(t, "")
	const key = "sk-test-key-0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	summary := ciEnv(t, true)
	samples := recordChat(t, 2, "tiny-"+key)
	file := filepath.Join(t.TempDir(), "junit.xml")
	var out, errOut bytes.Buffer
	code := runVerdict([]string{"-junit", file, samples}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (10%% errors > 1%%):\n%s%s", code, &out, &errOut)
	}
	xml, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"JUnit file": xml, "summary": md, "stdout": out.Bytes()} {
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("the %s holds the API key", name)
		}
	}
	contains(t, "step summary", string(md), []string{"### llmsla verdict: exit 1, 1 objectives violated in 1 of 1 levels",
		"commit abc123", "sim: model tiny-[redacted] at built-in simulator", "| chat | sim |", "**FAIL (1)**",
		"- chat endpoint=sim concurrency=1: error rate 10% > 1% (n=20; rate\\_limited=2)"})
	contains(t, "stdout", out.String(), []string{
		"::error title=SLA violated::chat endpoint=sim concurrency=1: error rate 10%25 > 1%25 (n=20; rate_limited=2)\n",
		"::notice title=llmsla verdict::llmsla verdict: exit 1, 1 objectives violated in 1 of 1 levels\n"})
	if i, j := strings.Index(out.String(), "SLA violated."), strings.Index(out.String(), "::error"); i < 0 || j < i {
		t.Errorf("the annotations do not follow the verdict:\n%s", &out)
	}
	d := junittest.Validate(t, xml)
	s := d.Suites[0]
	if s.Name != "llmsla verdict" || s.Tests != 1 || s.Failures != 1 || s.Timestamp != "2026-05-06T07:08:09Z" {
		t.Errorf("suite %q tests=%d failures=%d timestamp=%q", s.Name, s.Tests, s.Failures, s.Timestamp)
	}
	for name, want := range map[string]string{"commit": "abc123", "endpoint.sim": "model tiny-[redacted] at built-in simulator"} {
		if got := s.Property(name); got != want {
			t.Errorf("property %s = %q, want %q", name, got, want)
		}
	}
	if s.Property("config") == "" {
		t.Error("no config property")
	}
	c := s.Cases[0]
	if c.Classname != "chat/sim" || c.Name != "concurrency=1" || len(c.Failures) != 1 || c.Failures[0].Message != "error rate 10% > 1% (n=20; rate_limited=2)" {
		t.Errorf("case %+v", c)
	}
}

// TestVerdictCIOutputsWhenBroken: a verdict that cannot judge (a file
// that does not exist) still writes its JUnit file, one error saying why,
// and a summary and an error annotation with the same line.
func TestVerdictCIOutputsWhenBroken(t *testing.T) {
	simEnv(t, "")
	summary := ciEnv(t, true)
	file := filepath.Join(t.TempDir(), "junit.xml")
	var out, errOut bytes.Buffer
	if code := runVerdict([]string{"-junit", file, "/nonexistent/run.samples.jsonl"}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	md, _ := os.ReadFile(summary)
	contains(t, "summary", string(md), []string{"### llmsla verdict: exit 2, llmsla: stat /nonexistent/run.samples.jsonl: no such file or directory"})
	contains(t, "stdout", out.String(), []string{"::error title=llmsla verdict::llmsla verdict: exit 2, llmsla: stat /nonexistent"})
	xml, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d := junittest.Validate(t, xml)
	if c := d.Suites[0].Cases; len(c) != 1 || len(c[0].Errors) != 1 || !strings.Contains(c[0].Errors[0].Message, "no such file") {
		t.Errorf("cases %+v, want one error naming the missing file", c)
	}
}

// TestCIOutputsOnlyWhenAsked: without -junit and outside GitHub Actions
// nothing is written beside the verdict.
func TestCIOutputsOnlyWhenAsked(t *testing.T) {
	simEnv(t, "")
	t.Setenv(github.SummaryEnv, "")
	t.Setenv("GITHUB_ACTIONS", "")
	var out, errOut bytes.Buffer
	if code := runVerdict([]string{recordChat(t, 2, "m")}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out.String(), "::") {
		t.Errorf("annotations outside GitHub Actions:\n%s", &out)
	}
}

// TestJUnitUnwritable: a JUnit file that cannot be written is exit 2: CI
// would read a stale one, or none, as the result.
func TestJUnitUnwritable(t *testing.T) {
	simEnv(t, "")
	ciEnv(t, false)
	// Under a file, not a directory: no one, root included, can create it.
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(notDir, "junit.xml")
	var out, errOut bytes.Buffer
	code := runVerdict([]string{"-junit", file, recordChat(t, 0, "m")}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "-junit "+file) {
		t.Errorf("exit %d, want 2 naming the file:\n%s", code, &errOut)
	}
}

// TestGateCIOutputs: llmsla gate -junit on testdata/new.txt (ttft-p95-ms
// 20% higher) writes a failing case per regressed figure, the summary
// the gate's report, and an annotation per regression; a side that does
// not exist writes one error.
func TestGateCIOutputs(t *testing.T) {
	slaFile(t, "")
	summary := ciEnv(t, true)
	file := filepath.Join(t.TempDir(), "junit.xml")
	var out, errOut bytes.Buffer
	if code := runGate([]string{"-junit", file, testdata + "base.txt", testdata + "new.txt"}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s%s", code, &out, &errOut)
	}
	md, _ := os.ReadFile(summary)
	contains(t, "summary", string(md), []string{"### gate FAIL:", "| **REGRESSED** |", "ttft-p95-ms", "<details>"})
	contains(t, "stdout", out.String(), []string{"::error title=regression::REGRESSED runs ", "::notice title=llmsla gate::gate FAIL"})
	xml, _ := os.ReadFile(file)
	d := junittest.Validate(t, xml)
	s := d.Suites[0]
	if s.Failures == 0 || s.Property("base") != testdata+"base.txt" {
		t.Errorf("failures=%d base=%q", s.Failures, s.Property("base"))
	}
	for _, c := range s.Cases {
		if len(c.Failures) > 0 && (c.Name != "ttft-p95-ms" || !strings.HasPrefix(c.Failures[0].Message, "REGRESSED")) {
			t.Errorf("failing case %s %s: %+v", c.Classname, c.Name, c.Failures)
		}
	}

	t.Run("unusable", func(t *testing.T) {
		ciEnv(t, false)
		var out, errOut bytes.Buffer
		if code := runGate([]string{"-junit", file, testdata + "base.txt", "/nonexistent.txt"}, &out, &errOut); code != 2 {
			t.Fatalf("exit %d, want 2", code)
		}
		xml, _ := os.ReadFile(file)
		d := junittest.Validate(t, xml)
		if c := d.Suites[0].Cases; len(c) != 1 || len(c[0].Errors) != 1 || !strings.Contains(c[0].Errors[0].Message, "/nonexistent.txt") {
			t.Errorf("cases %+v, want one error naming the missing file", c)
		}
	})
}

// TestErrTail: the kept lines are the command's, not its progress, and
// bounded.
func TestErrTail(t *testing.T) {
	var tl errTail
	for i := range 30 {
		tl.Write([]byte("go test: line " + string(rune('a'+i%26)) + "\n"))
	}
	tl.Write([]byte("progress: chat 3/20 requests\n\r\x1b[Kchat 4/20\n"))
	tl.Write([]byte("llmsla: preflight: connection refused\n  sim: dial tcp\n"))
	tl.Write([]byte(strings.Repeat("x", 5000)))
	if got := tl.last(); got != "llmsla: preflight: connection refused" {
		t.Errorf("last = %q", got)
	}
	text := tl.text()
	if strings.Contains(text, "progress") || strings.Contains(text, "\x1b") || len(tl.lines) != tailLines || len(tl.partial) > 4*tailLineMax {
		t.Errorf("kept %d lines, %d bytes pending:\n%s", len(tl.lines), len(tl.partial), text)
	}
}

// TestBenchJUnit: llmsla bench -junit writes a case per level it
// measured, named by the commit it recorded; a bench that matches no
// benchmark is broken before any request and says so in one error case.
func TestBenchJUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "ttft=5ms,tpot=1ms")
	ciEnv(t, false)
	file := filepath.Join(t.TempDir(), "junit.xml")
	code, stdout, stderr, _ := bench(t, "-count", "1", "-n", "3", "-junit", file)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	xml, _ := os.ReadFile(file)
	d := junittest.Parse(t, xml)
	s := d.Suites[0]
	if s.Name != "llmsla bench" || s.Tests == 0 || s.Failures+s.Errors != 0 || s.Property("commit") != session.Commit() {
		t.Errorf("suite %q tests=%d failures=%d errors=%d commit=%q (want %q)", s.Name, s.Tests, s.Failures, s.Errors, s.Property("commit"), session.Commit())
	}
	if got := s.Property("endpoint.sim"); got != "model sim at built-in simulator" {
		t.Errorf("property endpoint.sim = %q, want the model and host the results file recorded", got)
	}
	for _, c := range s.Cases {
		if c.Classname != "chat/sim" {
			t.Errorf("case %s %s: want chat/sim, the scenario benched", c.Classname, c.Name)
		}
	}
	t.Run("broken", func(t *testing.T) {
		code, _, _, _ := bench(t, "-bench", "NoSuchBenchmark", "-junit", file)
		if code != 2 {
			t.Fatalf("exit %d, want 2", code)
		}
		xml, _ := os.ReadFile(file)
		d := junittest.Validate(t, xml)
		if c := d.Suites[0].Cases; len(c) != 1 || len(c[0].Errors) != 1 || !strings.Contains(c[0].Errors[0].Message, "matches no benchmark") {
			t.Errorf("cases %+v, want one error saying -bench matches nothing", c)
		}
	})
	junittest.Validate(t, xml)
}

// TestReportHTMLNamesTheRun: the HTML report's header names the commit
// the results file beside the samples recorded, and each endpoint's
// model and host.
func TestReportHTMLNamesTheRun(t *testing.T) {
	simEnv(t, "")
	var out, errOut bytes.Buffer
	if code := runReport([]string{"-format", "html", recordChat(t, 0, "tiny")}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, &errOut)
	}
	contains(t, "report", out.String(), []string{"<dt>commit</dt><dd>abc123</dd>", "<dt>run</dt><dd>2026-05-06 07:08:09 – 07:08:11 UTC (2s)</dd>",
		"sim: model tiny at built-in simulator"})
}

// TestCIOutputsRedactWhatTheyQuote: a message quoted from stderr before
// the command's redactor existed (a configuration that does not load,
// its path holding the key) is redacted in the JUnit file, the summary
// and the annotations.
func TestCIOutputsRedactWhatTheyQuote(t *testing.T) {
	simEnv(t, "")
	const key = "sk-test-key-9876543210"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("LLMSLA_CONFIG", "/nonexistent/"+key+"/sla.yaml")
	summary := ciEnv(t, true)
	file := filepath.Join(t.TempDir(), "junit.xml")
	var out, errOut bytes.Buffer
	if code := runVerdict([]string{"-junit", file, "x.samples.jsonl"}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, &errOut)
	}
	xml, _ := os.ReadFile(file)
	md, _ := os.ReadFile(summary)
	for name, b := range map[string][]byte{"JUnit file": xml, "summary": md, "annotations": out.Bytes()} {
		if bytes.Contains(b, []byte(key)) || !bytes.Contains(b, []byte("[redacted]")) {
			t.Errorf("the %s does not redact the quoted message:\n%s", name, b)
		}
	}
}
