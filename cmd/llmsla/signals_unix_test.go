//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
)

// TestSignalsStopEverySender: bench, capacity, ab and judge calibrate
// handle SIGINT and SIGTERM alike — the requests stop, the command says
// it was interrupted by that signal and exits 2, and nothing is left
// half-written: a run's files are kept as a partial run (X.partial.*,
// every line readable), never as latest.* or a capacity record without
// its steps, and a judge's cache reads back. Before, capacity exited 130
// or 143 with no message (and 0 with SIGINT ignored, 36 s later), leaving
// its samples without their .txt.
func TestSignalsStopEverySender(t *testing.T) {
	if testing.Short() {
		t.Skip("builds llmsla and runs go test on the suites")
	}
	cfg := sim.Default()
	cfg.TTFT = 40 * time.Millisecond
	srv, base := sim.Start(t, cfg)
	simEnv(t, "")
	bin := buildLlmsla(t, true)
	labels := calibrationLabels(t, 400)
	commands := map[string]struct {
		yaml string
		args []string
		// kept checks what the command left in out.
		kept func(t *testing.T, out string)
		// sends says whether its requests reach srv (the judge's go to
		// a simulator inside llmsla).
		sends bool
	}{
		"bench": {fmt.Sprintf("endpoints:\n  slow: {base_url: %q, model: sim}\nscenarios:\n  chat: {concurrency: [2]}\n", base),
			[]string{"bench", "-pkg", suites, "-bench", "Chat", "-count", "10", "-n", "400", "-q"}, keptPartial("", true), true},
		"capacity": {fmt.Sprintf("endpoints:\n  slow: {base_url: %q, model: sim}\nscenarios:\n  chat: {samples: 400}\n", base),
			[]string{"capacity", "-pkg", suites, "-max", "20"}, keptPartial("capacity-", false), true},
		"ab": {fmt.Sprintf("endpoints:\n  a: {base_url: %q, model: sim}\n  b: {base_url: %q, model: sim}\n", base, base),
			[]string{"ab", "-pkg", suites, "-n", "400", "-count", "5", "a", "b"}, keptPartial("ab-", false), true},
		"judge calibrate": {"endpoints:\n  sim: {sim: \"\"}\n  grader: {sim: \"ttft=100ms,tpot=0s,judge\"}\njudge: {endpoint: grader, cache: CACHE, concurrency: 2}\n",
			[]string{"judge", "calibrate", "-labels", labels, "-rubric", "../../fixtures/rubrics/summary.yaml"}, keptCache, false},
	}
	for name, c := range commands {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(fmt.Sprintf("%s/%s", name, signalName(sig)), func(t *testing.T) {
				out := t.TempDir()
				useConfig(t, strings.ReplaceAll(c.yaml, "CACHE", filepath.Join(out, "judge-cache.jsonl")))
				args := c.args
				if name != "judge calibrate" {
					args = append([]string{args[0], "-out", out}, args[1:]...)
				}
				cmd := exec.Command(bin, args...)
				cmd.Dir = "."
				var stdout, stderr syncBuffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				before := len(srv.Truth())
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				deadline := time.Now().Add(90 * time.Second)
				for c.sends && len(srv.Truth()) < before+10 || !c.sends && time.Since(deadline.Add(-90*time.Second)) < 3*time.Second {
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						t.Fatalf("no requests after 90 s:\n%s\n%s", stdout.String(), stderr.String())
					}
					time.Sleep(20 * time.Millisecond)
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					cmd.Process.Kill()
					t.Fatalf("still running 30 s after %s:\n%s\n%s", sig, stdout.String(), stderr.String())
				}
				if code := cmd.ProcessState.ExitCode(); code != exitBroken {
					t.Errorf("exit %d after %s, want 2:\n%s\n%s", code, sig, stdout.String(), stderr.String())
				}
				if want := "interrupted by " + signalName(sig); !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
				}
				c.kept(t, out)
			})
		}
	}
}

// keptPartial checks that a run interrupted in out left a partial run
// whose samples read back, no latest.*, and (bench) its benchmark lines.
func keptPartial(kind string, txt bool) func(t *testing.T, out string) {
	return func(t *testing.T, out string) {
		t.Helper()
		if m, _ := filepath.Glob(filepath.Join(out, "latest.*")); len(m) > 0 {
			t.Errorf("an interrupted run became latest: %v", m)
		}
		whole, _ := filepath.Glob(filepath.Join(out, kind+"2*Z.txt"))
		if len(whole) > 0 {
			t.Errorf("an interrupted run left a whole run's record: %v", whole)
		}
		samples, _ := filepath.Glob(filepath.Join(out, kind+"*.partial.samples.jsonl"))
		if len(samples) != 1 {
			entries, _ := os.ReadDir(out)
			t.Fatalf("want one partial samples file, have %v", entries)
		}
		if _, _, err := sample.ReadAll(samples, true); err != nil {
			t.Errorf("the partial samples do not read back: %v", err)
		}
		if txt {
			if m, _ := filepath.Glob(filepath.Join(out, kind+"*.partial.txt")); len(m) != 1 {
				t.Errorf("no partial benchmark lines: %v", m)
			}
		}
	}
}

// keptCache checks that an interrupted calibration's judge cache reads
// back, every line of it.
func keptCache(t *testing.T, out string) {
	t.Helper()
	c, err := judge.OpenCache(filepath.Join(out, "judge-cache.jsonl"), nil, false)
	if err != nil {
		t.Fatalf("the judge's cache does not read back: %v", err)
	}
	c.Close()
}
