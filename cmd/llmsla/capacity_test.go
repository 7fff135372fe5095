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
)

// TestCapacityCommand: llmsla capacity on a simulator with 4 slots and a
// 50 ms service time reports a limit no higher than the 80 req/s its model
// allows, as a line and as max-rps, and does not replace
// results/latest.txt. (How close the limit is to the simulator's truth is
// TestCapacityOnSimulator's part, in package harness, which can see it.)
func TestCapacityCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	yaml := "endpoints:\n  sim: {sim: \"slots=4,ttft=50ms,tpot=0s,jitter=0\"}\n" +
		"scenarios:\n  chat:\n    samples: 80\n    arrival: constant\n    sla: {ttft_p95_ms: 100}\n"
	useConfig(t, yaml)
	t.Setenv(config.EnvCapacity, "") // restored after runCapacity sets it
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := runCapacity([]string{"-scenario", "chat", "-start", "32", "-pkg", suites, "-out", dir}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	m := regexp.MustCompile(`capacity \(chat endpoint=sim, by rate, resolution 10%, \d+ steps\): ([0-9.]+) req/s; above it, at [0-9.]+ req/s: ttft p95`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no capacity line:\n%s", out.String())
	}
	limit, _ := strconv.ParseFloat(m[1], 64)
	if limit < 32 || limit > 80*1.05 {
		t.Errorf("capacity %g req/s, want at most the simulator's 80 (and more than the 32 the search started from)", limit)
	}
	if !regexp.MustCompile(`(?m)^BenchmarkChat/endpoint=sim/capacity=rate-\d+\s.*\s[0-9.]+ max-rps`).MatchString(out.String()) {
		t.Errorf("no max-rps benchmark line:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "latest.txt")); err == nil {
		t.Error("a capacity search replaced results/latest.txt")
	}
}

// TestCapacityWholeStart: a concurrency search runs whole requests in
// flight, so -start 1.5 (which would run 1 and report 1.5) is refused
// before any request, naming the value.
func TestCapacityWholeStart(t *testing.T) {
	simEnv(t, "")
	t.Setenv(config.EnvCapacity, "") // restored after runCapacity sets it
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
