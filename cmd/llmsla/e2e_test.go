package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	const spec0 = spec // the baseline's
	record := func(t *testing.T, spec string) string {
		t.Helper()
		simEnv(t, spec)
		// A client that could not keep time (a busy machine stalled the
		// process: timers 655 ms late, TTFT p95 649 ms) is no recording
		// of the simulator: llmsla says so with exit 2, and this test
		// measures again (benchSteady).
		code, stdout, stderr, dir := benchSteady(t, "-count", "10", "-n", "3")
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
		// none at all (blind, exit 2). This test is about TTFT: the total's
		// p95, 64 tokens after it, drifts more between a busy machine's
		// runs, and beside two CPU-bound processes the drift left it blind.
		code := runGate([]string{"-allow-blind", "tpot-p50-ms", "-allow-blind", "total-p95-ms", base, new}, &stdout, &stderr)
		if code == 0 || code == 1 {
			// The medians behind the verdict, for whoever reads a failure.
			runCompare([]string{"-filter", ".unit:(ttft-p50-ms OR ttft-p95-ms)", base, new}, &stdout, &stderr)
		}
		return code, stdout.String() + stderr.String()
	}
	base := record(t, spec)
	// gateNew records a candidate and gates it; when the two sides'
	// clients differ beyond the tolerance (exit 2, client-bound: the
	// machine's load changed between the two), the side the gate names is
	// measured again, twice at most, as a user would. It gives the last
	// refusal's sides too.
	gateNew := func(t *testing.T, spec string) (code int, out, baseFile, newFile string) {
		t.Helper()
		newFile = record(t, spec)
		code, out = gateRun(t, base, newFile)
		for try := 1; try <= 2 && code == exitBroken && strings.Contains(out, "client-bound"); try++ {
			t.Logf("gate %d refused a client-bound side, measured again:\n%s", try, out)
			if strings.Contains(out, "unusable benchmark input: BASE ") {
				base = record(t, spec0)
			} else {
				newFile = record(t, spec)
			}
			code, out = gateRun(t, base, newFile)
		}
		return code, out, base, newFile
	}
	t.Run("TTFT +25% fails", func(t *testing.T) {
		code, out, _, _ := gateNew(t, spec+",scale=1.25")
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
		code, out, baseFile, newFile := gateNew(t, spec)
		t.Logf("gate:\n%s", out)
		if code == exitBroken && clientsDiffer(t, out, baseFile, newFile) {
			// The machine's load kept changing over three recordings: the
			// gate refused rightly, the recorded clients say so. Never a
			// regression (exit 1), never a refusal the files do not bear.
			t.Logf("the sides' recorded clients differ beyond the tolerance three times: refused, not judged")
			return
		}
		if code != 0 {
			t.Fatalf("exit = %d, want 0", code)
		}
		contains(t, "gate output", out, []string{"gate PASS"})
	})
}

// clientsDiffer checks a gate's refusal of two sides whose clients
// differ against the two files themselves: the figure it names, read from
// each file's lines of the benchmark it names (the largest of its runs'
// values, as a level's health is), differs by more than the tolerance it
// states, and is what it printed. A refusal the files do not bear fails.
func clientsDiffer(t *testing.T, out, baseFile, newFile string) bool {
	t.Helper()
	m := regexp.MustCompile(`(?:BASE|NEW) \S+ (\S+): client-bound: the two runs' clients differ: (\S+) ([0-9.]+) vs ([0-9.]+) \(tolerance ([0-9.]+)\)`).FindStringSubmatch(out)
	if m == nil {
		return false
	}
	bench, unit := m[1], m[2]
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	worst := func(file string) float64 {
		txt, err := os.ReadFile(file)
		require.NoError(t, err)
		line := regexp.MustCompile(`(?m)^Benchmark` + regexp.QuoteMeta(bench) + `-\d+\s.*?([0-9.]+) ` + regexp.QuoteMeta(unit) + `\b`)
		w := -1.0
		for _, l := range line.FindAllStringSubmatch(string(txt), -1) {
			w = max(w, num(l[1]))
		}
		require.GreaterOrEqual(t, w, 0.0, "%s records no %s for %s", file, unit, bench)
		return w
	}
	b, n, tol := worst(baseFile), worst(newFile), num(m[5])
	assert.InDelta(t, num(m[3]), b, 0.01*b+0.01, "the base's %s as printed", unit)
	assert.InDelta(t, num(m[4]), n, 0.01*n+0.01, "the candidate's %s as printed", unit)
	return math.Abs(b-n) > tol
}
