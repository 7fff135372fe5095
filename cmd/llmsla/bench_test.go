package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
)

// suites is the scenarios' package by import path, so that go test finds it
// from this test's working directory (cmd/llmsla).
const suites = "github.com/llmsla/llmsla/suites"

// simEnv makes harness.LoadConfig choose the built-in simulator with spec,
// whatever the caller's environment says.
func simEnv(t *testing.T, spec string) {
	t.Helper()
	for _, k := range []string{config.EnvConfig, config.EnvEndpoints, session.EnvChild, "OPENAI_BASE_URL"} {
		t.Setenv(k, "")
	}
	t.Setenv(config.EnvSim, spec)
	if root, err := config.ModuleRoot(); err == nil {
		if _, err := os.Stat(filepath.Join(root, "sla.yaml")); err == nil {
			t.Skipf("%s/sla.yaml exists and would be measured instead of the built-in simulator", root)
		}
	}
}

// bench runs `llmsla bench` in-process on the Chat scenario into a fresh
// directory and returns the exit code, output and directory.
func bench(t *testing.T, args ...string) (code int, stdout, stderr, dir string) {
	t.Helper()
	dir = t.TempDir()
	var out, errOut bytes.Buffer
	args = append([]string{"-pkg", suites, "-bench", "Chat", "-out", dir}, args...)
	code = runBench(args, &out, &errOut)
	return code, out.String(), errOut.String(), dir
}

// benchSteady is bench measured again, twice at most, while llmsla says
// the client could not keep time (exit 2, client-bound): on a busy machine
// that is no recording of the simulator, and a user, like a test that
// needs one, measures again.
func benchSteady(t *testing.T, args ...string) (code int, stdout, stderr, dir string) {
	t.Helper()
	code, stdout, stderr, dir = bench(t, args...)
	for try := 1; try <= 2 && code == exitBroken && strings.Contains(stdout+stderr, "client-bound"); try++ {
		t.Logf("bench %d was client-bound, measured again:\n%s", try, stderr)
		code, stdout, stderr, dir = bench(t, args...)
	}
	return code, stdout, stderr, dir
}

func TestBenchExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	t.Run("no configuration measures the simulator, exit 0", func(t *testing.T) {
		simEnv(t, "ttft=5ms,tpot=1ms")
		code, stdout, stderr, _ := bench(t, "-count", "1", "-n", "3")
		if code != 0 {
			t.Fatalf("exit = %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		contains(t, "stdout", stdout, []string{"the built-in simulator", "scenario  endpoint  conc", "All SLAs met."})
	})
	t.Run("unmeetable SLA, exit 1", func(t *testing.T) {
		simEnv(t, "")
		t.Setenv(config.EnvConfig, writeConfig(t, `endpoints:
  sim: {sim: "ttft=5ms,tpot=1ms"}
scenarios:
  chat:
    concurrency: [1]
    sla: {ttft_p95_ms: 1}
`))
		code, stdout, stderr, _ := bench(t, "-count", "1", "-n", "3")
		if code != 1 {
			t.Fatalf("exit = %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		line := regexp.MustCompile(`(?m)^chat endpoint=sim concurrency=1: ttft p95 [0-9.]+ ms > 1(\.0)? ms \(n=[0-9]+\)$`)
		if !line.MatchString(stdout) {
			t.Errorf("stdout lacks the violation line %q:\n%s", line, stdout)
		}
		contains(t, "stdout", stdout, []string{"FAIL (1)", "SLA violated."})
	})
	t.Run("unknown key, exit 2 before any request", func(t *testing.T) {
		simEnv(t, "")
		cfg := writeConfig(t, "endpoints:\n  sim: {sim: \"\"}\nscenarios:\n  chat:\n    sampels: 10\n")
		t.Setenv(config.EnvConfig, cfg)
		code, stdout, stderr, dir := bench(t)
		if code != 2 {
			t.Fatalf("exit = %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		contains(t, "stderr", stderr, []string{cfg + ":5:", "scenarios.chat.sampels", "unknown key", "samples"})
		if files, _ := os.ReadDir(dir); len(files) > 0 {
			t.Errorf("results written after a configuration error: %v", files)
		}
		if strings.Contains(stdout, "go test") {
			t.Errorf("ran go test after a configuration error:\n%s", stdout)
		}
	})
}

// An interrupted bench leaves a results file that benchfmt readers accept
// (go test prints a benchmark's name before its figures, so the cut line
// must not be recorded), a samples file that parses, latest.txt untouched,
// and exit 2. It runs the built command as a user would, because the
// signal must reach the go test child's test binary.
func TestBenchInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds llmsla and runs go test on the suites")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send")
	}
	simEnv(t, "ttft=100ms,tpot=1ms,jitter=0")
	bin := buildLlmsla(t, false)
	dir := t.TempDir()
	// A previous run's latest.txt, which the interrupted run must keep.
	if err := os.WriteFile(filepath.Join(dir, "latest.txt"), []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// -v shows the benchmark lines, by which the test sees the run under way.
	cmd := exec.Command(bin, "bench", "-pkg", suites, "-bench", "Chat", "-count", "10", "-n", "5", "-v", "-out", dir)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once a few benchmarks have finished, in the middle of one.
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(stdout.String(), "\nBenchmarkChat/") < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no benchmark output after 60 s:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	start := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	t.Logf("exited %v after the interrupt", time.Since(start).Round(time.Millisecond))
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("exit: %v, want status 2\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	contains(t, "stderr", stderr.String(), []string{"interrupted", "unchanged"})

	txts, _ := filepath.Glob(filepath.Join(dir, "2*.txt"))
	if len(txts) != 1 {
		t.Fatalf("results files %v, want one", txts)
	}
	counts, err := runCounts(txts[0])
	if err != nil {
		t.Errorf("interrupted results do not parse: %v", err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 || total >= 30 {
		t.Errorf("%d results recorded, want some but not all 30 (the run was interrupted)", total)
	}
	b, _ := os.ReadFile(txts[0])
	if !bytes.HasSuffix(b, []byte("\n")) {
		t.Errorf("%s ends in a cut line:\n%s", txts[0], b)
	}
	samples, err := sample.Read(strings.TrimSuffix(txts[0], ".txt") + ".samples.jsonl")
	if errors.Is(err, sample.ErrCut) {
		err = nil // killed mid-line: what finished is there, and the cut is said
	}
	if err != nil || len(samples) == 0 {
		t.Errorf("samples: %d, %v", len(samples), err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "latest.txt")); string(b) != "previous\n" {
		t.Errorf("latest.txt replaced by the interrupted run")
	}
}

// syncBuffer is a bytes.Buffer that a running command may write while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBenchNoSamplesKeepsLatest: a run becomes latest.* (both files, as
// recorded); a -bench that matches nothing passes go test but records no
// request. That run cannot be judged (exit 2), so it must leave latest.*
// as they were (docs/gate.md), and say no samples were recorded rather
// than name a file that is not there.
func TestBenchNoSamplesKeepsLatest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "ttft=5ms,tpot=1ms")
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := runBench([]string{"-pkg", suites, "-bench", "Chat", "-count", "1", "-n", "2", "-q", "-out", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("first run: exit = %d, want 0\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	txts, _ := filepath.Glob(filepath.Join(dir, "2*.txt"))
	if len(txts) != 1 {
		t.Fatalf("results files %v, want one", txts)
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(dir, name)); return string(b) }
	previous := map[string]string{"latest.txt": read(filepath.Base(txts[0])),
		"latest.samples.jsonl": read(strings.TrimSuffix(filepath.Base(txts[0]), ".txt") + ".samples.jsonl")}
	for name, body := range previous {
		if got := read(name); got != body || body == "" {
			t.Errorf("%s is not the run's file (%d bytes, the run's %d)", name, len(got), len(body))
		}
	}
	time.Sleep(time.Second) // the next run's timestamp, to the second, differs
	stdout.Reset()
	stderr.Reset()
	code := runBench([]string{"-pkg", suites, "-bench", "NoMatch", "-count", "1", "-n", "2", "-q", "-out", dir}, &stdout, &stderr)
	if code != 2 {
		t.Errorf("exit = %d, want 2\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	for name, body := range previous {
		if got := read(name); got != body {
			t.Errorf("%s replaced by a run that recorded no samples: %q", name, got)
		}
	}
	if strings.Contains(stdout.String(), ".samples.jsonl") {
		t.Errorf("stdout names a samples file that was not written:\n%s", &stdout)
	}
	// Found before anything is sent: the plan has no benchmark.
	contains(t, "stderr", stderr.String(), []string{`-bench "NoMatch" matches no benchmark`, "nothing to measure"})
	if files, _ := filepath.Glob(filepath.Join(dir, "2*")); len(files) != 4 { // the first run's .txt, .samples.jsonl, .summary.json, .server.jsonl
		t.Errorf("files %v: the run that matched nothing wrote some", files)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
