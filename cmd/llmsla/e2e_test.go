package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateEndToEnd runs the whole pipeline on the simulator: bench records a
// baseline and its samples, a candidate whose TTFT is 25% higher fails the
// gate naming ttft (judged on requests), the plan reads the baseline, and
// an unchanged candidate passes. The simulator's jitter is small and
// its TTFT long next to a busy machine's scheduling delays, so that the
// unchanged run stays inside the 10% tolerance: at ttft=40ms a baseline
// recorded beside four busy loops on two cores was 20% slower at
// concurrency 10 than an idle rerun; at 80ms both ways pass.
func TestGateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites three times")
	}
	const spec = "ttft=80ms,tpot=1ms,jitter=0.02"
	record := func(t *testing.T, spec string) string {
		t.Helper()
		simEnv(t, spec)
		code, stdout, stderr, dir := bench(t, "-count", "10", "-n", "3")
		// A client that could not keep time (a busy machine stalled the
		// process: timers 655 ms late, TTFT p95 649 ms) is no recording
		// of the simulator: llmsla says so with exit 2, and a user, like
		// this test, measures again; twice at most.
		for try := 1; try <= 2 && code == exitBroken && strings.Contains(stderr, "client-bound"); try++ {
			t.Logf("bench %d was client-bound, measured again:\n%s", try, stderr)
			code, stdout, stderr, dir = bench(t, "-count", "10", "-n", "3")
		}
		if code != 0 {
			t.Fatalf("bench with LLMSLA_SIM=%s: exit %d\nstdout:\n%s\nstderr:\n%s", spec, code, stdout, stderr)
		}
		return filepath.Join(dir, "latest.txt")
	}
	gateRun := func(t *testing.T, base, new string) (int, string) {
		t.Helper()
		slaFile(t, "") // the gate's defaults, whatever sla.yaml says
		var stdout, stderr bytes.Buffer
		// The simulated TPOT is 1 ms, and its tolerance's floor 1 ms: no
		// change of it under +100% is flagged, and on a loaded machine
		// none at all (blind, exit 2). This test is about TTFT.
		code := runGate([]string{"-allow-blind", "tpot-p50-ms", base, new}, &stdout, &stderr)
		if code == 0 || code == 1 {
			// The medians behind the verdict, for whoever reads a failure.
			runCompare([]string{"-filter", ".unit:(ttft-p50-ms OR ttft-p95-ms)", base, new}, &stdout, &stderr)
		}
		return code, stdout.String() + stderr.String()
	}
	// gateNew records a candidate and gates it; a candidate whose client
	// differs from the baseline's beyond the tolerance (exit 2,
	// client-bound: the machine got busier between the two) is measured
	// again, twice at most, as a user would.
	gateNew := func(t *testing.T, base, spec string) (int, string) {
		t.Helper()
		code, out := gateRun(t, base, record(t, spec))
		for try := 1; try <= 2 && code == exitBroken && strings.Contains(out, "client-bound"); try++ {
			t.Logf("gate %d refused a client-bound side, measured again:\n%s", try, out)
			code, out = gateRun(t, base, record(t, spec))
		}
		return code, out
	}
	base := record(t, spec)
	t.Run("TTFT +25% fails", func(t *testing.T) {
		code, out := gateNew(t, base, spec+",scale=1.25")
		t.Logf("gate:\n%s", out)
		if code != 1 {
			t.Fatalf("exit = %d, want 1", code)
		}
		contains(t, "gate output", out, []string{"gate FAIL", "REGRESSED", "ttft-p50-ms", "ttft-p95-ms"})
	})
	t.Run("plan", func(t *testing.T) {
		slaFile(t, "")
		var stdout, stderr bytes.Buffer
		code := runGate([]string{"-plan", "ttft-p95-ms=15%", base}, &stdout, &stderr)
		t.Logf("plan:\n%s%s", &stdout, &stderr)
		if code != 0 {
			t.Fatalf("exit = %d, want 0", code)
		}
		contains(t, "plan", stdout.String(), []string{"to flag ttft-p95-ms 15%", "chat/endpoint=sim", "requests a side", "(have 90:"})
		stdout.Reset()
		stderr.Reset()
		if code := runGate([]string{"-plan", "ttft-p95-ms", base}, &stdout, &stderr); code != 2 {
			t.Errorf("-plan without a change: exit = %d, want 2", code)
		}
	})
	t.Run("unchanged passes", func(t *testing.T) {
		code, out := gateNew(t, base, spec)
		t.Logf("gate:\n%s", out)
		if code != 0 {
			t.Fatalf("exit = %d, want 0", code)
		}
		contains(t, "gate output", out, []string{"gate PASS"})
	})
}
