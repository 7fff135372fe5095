package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestFastWrongEndpointFails: with no sla.yaml, an endpoint that answers
// fast but wrong fails the bench out of the box, naming the quality
// objective and the cases, while the simulator's defaults pass (see
// TestBenchExitCodes).
func TestFastWrongEndpointFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	cases := map[string]struct {
		spec, bench string
		want        *regexp.Regexp
	}{
		"25% wrong answers": {"ttft=2ms,tpot=0s,wrong=0.25", "Chat",
			regexp.MustCompile(`(?m)^chat endpoint=sim concurrency=\d+: accuracy [0-9.]+% < 90% \(n=\d+\)$`)},
		"10% invalid JSON": {"ttft=2ms,tpot=0s,invalid_json=0.1", "Extraction",
			regexp.MustCompile(`(?m)^extraction endpoint=sim concurrency=\d+: json valid [0-9.]+% < 99% \(n=\d+\)$`)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			simEnv(t, tc.spec)
			code, stdout, stderr, _ := bench(t, "-bench", tc.bench, "-count", "1", "-n", "20")
			if code != 1 {
				t.Fatalf("exit = %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if !tc.want.MatchString(stdout) {
				t.Errorf("stdout lacks a line matching %s:\n%s", tc.want, stdout)
			}
			contains(t, "stdout", stdout, []string{"failing cases (", "expected ", "SLA violated."})
		})
	}
}

// TestSuitesFailOnWrongAnswers: go test on the suites fails the same way.
func TestSuitesFailOnWrongAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "ttft=2ms,tpot=0s,wrong=0.25")
	out, err := exec.Command("go", "test", "-count=1", "-run", "^TestChat$", suites).CombinedOutput()
	if err == nil {
		t.Fatalf("go test passed against 25%% wrong answers:\n%s", out)
	}
	contains(t, "go test output", string(out), []string{"accuracy", "< 90%", "failing cases", "--- FAIL: TestChat"})
}

// TestMisspeltScenarioStopsBeforeAnyRequest: a scenario in sla.yaml that no
// suite defines is an error at its line, and nothing is measured.
func TestMisspeltScenarioStopsBeforeAnyRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	p := useConfig(t, "endpoints:\n  sim: {sim: \"\"}\nscenarios:\n  chta: {samples: 5}\n")
	code, stdout, stderr, dir := bench(t, "-count", "1", "-n", "3")
	if code != 2 {
		t.Fatalf("exit = %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	contains(t, "output", stdout+stderr, []string{p + ":4: scenarios.chta: no such scenario (defined: agent, batch, chat, conversation, embeddings, extraction, golden, summary, tools)"})
	files, _ := filepath.Glob(filepath.Join(dir, "*.samples.jsonl"))
	for _, f := range files {
		if s, _ := sample.Read(f); len(s) > 0 {
			t.Errorf("%s: %d requests were sent", f, len(s))
		}
	}
}

// TestBenchAsksEveryCase: a bench with as many requests per scenario and
// endpoint as the fixture has cases asks every case once, whichever run
// and level it falls in, and the table shows full coverage.
func TestBenchAsksEveryCase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "ttft=2ms,tpot=0s")
	// chat: 3 levels × 2 runs × 6 requests = 36 requests, 36 cases.
	code, stdout, stderr, dir := bench(t, "-count", "2", "-n", "6")
	if code != 0 {
		t.Fatalf("exit = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	samples, err := sample.Read(filepath.Join(dir, "latest.samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	fixture := 0
	for _, s := range samples {
		if s.Measured() {
			asked[s.Case]++
			fixture = s.FixtureCases
		}
	}
	if fixture != 36 || len(asked) != 36 {
		t.Errorf("%d distinct cases asked of a fixture of %d, want 36 of 36: %v", len(asked), fixture, asked)
	}
	for id, n := range asked {
		if n != 1 {
			t.Errorf("case %s asked %d times, want once", id, n)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "latest.txt")); strings.Contains(string(b), "elapsed") {
		t.Error("progress went into the results file")
	}
	row := regexp.MustCompile(`(?m)^\s+chat\s+sim\s+10\s.*\s100%\s+ok\s*$`) // cov (no tool, cache or judge column: nothing measured them)
	if !row.MatchString(stdout) || !strings.Contains(stdout, " cov ") {
		t.Errorf("the table does not show full coverage:\n%s", stdout)
	}
}

// TestGoldenFirstContact: against an endpoint with no recorded goldens,
// TestGolden says so once, with how to record, and still measures and
// judges the endpoint, rather than failing once per case — except under
// CI=true, where the missing goldens fail it once.
func TestGoldenFirstContact(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	useConfig(t, "endpoints:\n  fresh: {sim: \"ttft=1ms,tpot=0s\"}\n")
	t.Setenv("CI", "")
	out, err := exec.Command("go", "test", "-count=1", "-v", "-run", "^TestGolden$", suites).CombinedOutput()
	if err != nil {
		t.Fatalf("go test failed on a first contact: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "no goldens recorded for endpoint fresh"); n != 1 {
		t.Errorf("the note appears %d times, want once:\n%s", n, out)
	}
	contains(t, "go test output", string(out), []string{"--- PASS: TestGolden/endpoint=fresh/concurrency=1", "-run TestGolden -update"})

	t.Setenv("CI", "true")
	out, err = exec.Command("go", "test", "-count=1", "-run", "^TestGolden$", suites).CombinedOutput()
	if err == nil || strings.Count(string(out), "no goldens recorded for endpoint fresh") != 1 {
		t.Errorf("under CI=true, want one failure naming the missing goldens:\n%s", out)
	}
}
