package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCapacityCommand: llmsla capacity on a simulator with 4 slots and a
// 50 ms service time reports a limit no higher than the 80 req/s its model
// allows, as its last line and as max-rps in the results, and does not
// replace results/latest.txt. It runs in this process: the scenario's
// definition is given, as the suites' plan would give it, and no go test
// is spawned. (How close the limit is to the simulator's truth is
// TestCapacityOnSimulator's part, in package session, which can see it.)
func TestCapacityCommand(t *testing.T) {
	simEnv(t, "")
	shipped(t)
	yaml := "endpoints:\n  sim: {sim: \"slots=4,ttft=50ms,tpot=0s,jitter=0\"}\n" +
		"scenarios:\n  chat:\n    samples: 80\n    arrival: constant\n    sla: {ttft_p95_ms: 100}\n"
	useConfig(t, yaml)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := runCapacity([]string{"-scenario", "chat", "-start", "32", "-pkg", suites, "-out", dir}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 3, out.String())
	assert.Regexp(t, `^  step chat endpoint=sim rate=32\.0: held$`, lines[0])
	assert.Regexp(t, `^recorded .*capacity-.*\.txt and .*capacity-.*\.samples\.jsonl$`, lines[len(lines)-1])
	m := regexp.MustCompile(`^capacity \(chat endpoint=sim, by rate, resolution 10%, \d+ steps\): ([0-9.]+) req/s; above it, at [0-9.]+ req/s: ttft p95`).FindStringSubmatch(lines[len(lines)-2])
	if m == nil {
		t.Fatalf("no capacity line:\n%s", out.String())
	}
	limit, _ := strconv.ParseFloat(m[1], 64)
	if limit < 32 || limit > 80*1.05 {
		t.Errorf("capacity %g req/s, want at most the simulator's 80 (and more than the 32 the search started from)", limit)
	}
	txts, _ := filepath.Glob(filepath.Join(dir, "capacity-*.txt"))
	require.Len(t, txts, 1)
	rec, err := os.ReadFile(txts[0])
	require.NoError(t, err)
	r := regexp.MustCompile(`(?m)^BenchmarkChat/endpoint=sim/capacity=rate 1 0 ns/op ([0-9.]+) max-rps$`).FindStringSubmatch(string(rec))
	require.NotNil(t, r, "no max-rps benchmark line:\n%s", rec)
	recorded, _ := strconv.ParseFloat(r[1], 64)
	assert.Equal(t, limit, recorded, "the line says the limit the results record")
	if _, err := os.Stat(filepath.Join(dir, "latest.txt")); err == nil {
		t.Error("a capacity search replaced results/latest.txt")
	}
}

// TestCapacityWholeStart: a concurrency search runs whole requests in
// flight, so -start 1.5 (which would run 1 and report 1.5) is refused
// before any request, naming the value.
func TestCapacityWholeStart(t *testing.T) {
	simEnv(t, "")
	shipped(t)
	t.Setenv(config.EnvEndpoints, "")
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := runCapacity([]string{"-by", "concurrency", "-start", "1.5", "-pkg", suites, "-out", dir}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "start 1.5: want a whole number") {
		t.Errorf("exit %d, stderr %q; want 2 naming start 1.5", code, errOut.String())
	}
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Errorf("results written: %v", files)
	}
}

// shipped stands the shipped chat scenario's definition in for the suites'
// plan, so that llmsla capacity runs without go test.
func shipped(t *testing.T) {
	t.Helper()
	orig := definitions
	t.Cleanup(func() { definitions = orig })
	definitions = func(string) (session.Suites, error) {
		return session.Suites{Defined: []session.Scenario{{Name: "chat", Fixture: "fixtures/classify.jsonl", System: "You are a helpful assistant. Answer with the label only."}},
			Benched: []string{"chat"}, Benchmarks: map[string]string{"chat": "BenchmarkChat"}}, nil
	}
}

// TestCapacityUnknownScenario: a misspelt -scenario names the flag and the
// scenarios the suites define — not a variable the user never set.
func TestCapacityUnknownScenario(t *testing.T) {
	simEnv(t, "")
	shipped(t)
	var out, errOut bytes.Buffer
	code := runCapacity([]string{"-scenario", "chta", "-out", t.TempDir()}, &out, &errOut)
	if code != exitBroken || !strings.Contains(errOut.String(), `-scenario "chta": no such scenario (defined: chat)`) {
		t.Errorf("exit %d, stderr %q; want 2 naming -scenario and the defined ones", code, errOut.String())
	}
	if strings.Contains(errOut.String(), "LLMSLA_CAPACITY") {
		t.Errorf("blames a variable nobody set: %q", errOut.String())
	}
}
