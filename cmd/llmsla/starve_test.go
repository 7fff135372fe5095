//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sim"
)

// TestStarvedClientExits2: a client starved of CPU by other processes is
// a broken measurement, not a verdict on the endpoint. The test binary of
// a real llmsla bench is reniced to 19 once it sends, beside two
// CPU-bound processes a core; the endpoint (a simulator in this process)
// is not starved. The bench exits 2 naming the client's figure. Proven:
// without the renice and the spinners the same bench exits 0.
func TestStarvedClientExits2(t *testing.T) {
	if testing.Short() {
		t.Skip("builds llmsla and starves its test binary")
	}
	cfg := sim.Default()
	cfg.TTFT, cfg.TPOT, cfg.OutputTokens = 20*time.Millisecond, time.Millisecond, 8
	srv, base := sim.Start(t, cfg)
	simEnv(t, "")
	useConfig(t, fmt.Sprintf("endpoints:\n  starved: {base_url: %q, model: sim}\nscenarios:\n  chat: {concurrency: [2], sla: {accuracy_min: 0}}\n", base))
	bin := buildLlmsla(t, true)
	cmd := exec.Command(bin, "bench", "-pkg", suites, "-bench", "Chat$", "-count", "1", "-n", "16", "-q", "-out", t.TempDir())
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The test binary is sending: past llmsla's preflight, in the run's
	// cold request and warm-up (the plan's binary sends nothing).
	deadline := time.Now().Add(60 * time.Second)
	group := 0
	for group == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no test binary sending after 60 s:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
		if len(srv.Truth()) >= 3 {
			group = childOf(cmd.Process.Pid, "suites-") // its own process group (ownGroup)
		}
	}
	// Every thread of the group, and those it starts after.
	if err := syscall.Setpriority(syscall.PRIO_PGRP, group, 19); err != nil {
		t.Fatal(err)
	}
	for range 2 * runtime.NumCPU() {
		spin := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := spin.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { spin.Process.Kill(); spin.Wait() })
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitBroken {
		t.Fatalf("starved bench: %v, want exit %d\n%s", err, exitBroken, out.String())
	}
	contains(t, "output", out.String(), []string{"client-bound: client-late-p", "the client could not keep time"})
	if bytes.Contains([]byte(out.String()), []byte("SLA violated")) {
		t.Errorf("a starved client's run judged the endpoint:\n%s", out.String())
	}
}
