package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// recordedRun writes a run of 10 × 20 requests that met its SLA (as
// TestRunBaselinePromotes does) into dir, its benchmark lines with the
// client's figures f, and returns its results file.
func recordedRun(t *testing.T, dir string, ttft int, f health.Figures) string {
	t.Helper()
	from := filepath.Join(dir, "latest.txt")
	var txt strings.Builder
	txt.WriteString("Unit ttft-p95-ms better=lower\n")
	for _, u := range health.Units {
		fmt.Fprintf(&txt, "Unit %s better=%s\n", u.Name, u.Better())
	}
	s, err := sample.Create(recording.SamplesBeside(from), nil)
	if err != nil {
		t.Fatal(err)
	}
	for run := range 10 {
		fmt.Fprintf(&txt, "BenchmarkChat/endpoint=sim/concurrency=1-2\t20\t%d ttft-p95-ms", ttft+run%3)
		for _, u := range health.Units {
			fmt.Fprintf(&txt, " %g %s", u.Of(f), u.Name)
		}
		txt.WriteString("\n")
		for i := range 20 {
			d := time.Duration(ttft+i%5) * time.Millisecond
			s.Write(&sample.Sample{Scenario: "chat", Endpoint: "sim", Level: "concurrency=1", Run: fmt.Sprintf("r%d", run), Seq: i, Start: time.Now(),
				TTFT: d, TTFA: d, Total: d + time.Millisecond, OutputTokens: 2, Finish: "stop"})
		}
	}
	s.Close()
	if err := os.WriteFile(from, []byte(txt.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return from
}

var (
	cleanClient = health.Figures{Wakes: 2000, LateP50: 0.15, LateP99: 4, LateMax: 9, CPU: 0.4, Cores: 2, Load: 1}
	busyClient  = health.Figures{Wakes: 2000, LateP50: 6.5, LateP99: 60, LateMax: 200, CPU: 0.7, Cores: 2, Load: 4}
)

// TestClientBoundRecorded: a run whose client was beyond its limits is a
// broken measurement: its verdict exits 2 naming the level and the
// client's figure, with a line under the table (its error bound beside),
// unless -allow-busy, which judges and says so; baseline refuses to
// promote it; the gate refuses it as either side, naming the side and the
// figure, before any figure — where on the code before, the busy side's
// +40% TTFT was a regression (exit 1). A clean run says its client kept
// time, and its bound.
func TestClientBoundRecorded(t *testing.T) {
	slaFile(t, "")
	quiet := recordedRun(t, t.TempDir(), 20, cleanClient)
	busy := recordedRun(t, t.TempDir(), 28, busyClient)
	run := func(f func([]string, *bytes.Buffer, *bytes.Buffer) int, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := f(args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	verdictOf := func(args []string, o, e *bytes.Buffer) int { return runVerdict(args, o, e) }
	gateOf := func(args []string, o, e *bytes.Buffer) int { return runGate(args, o, e) }
	baselineOf := func(args []string, o, e *bytes.Buffer) int { return runBaseline(args, o, e) }

	code, out, errOut := run(verdictOf, recording.SamplesBeside(quiet))
	if code != exitOK || !strings.Contains(out, "client: kept time on every level") {
		t.Errorf("clean run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(verdictOf, recording.SamplesBeside(busy))
	if code != exitBroken {
		t.Errorf("busy run's verdict: exit %d, want 2\n%s%s", code, out, errOut)
	}
	contains(t, "stderr", errOut, []string{"chat endpoint=sim concurrency=1: client-bound: client-late-p50-ms 6.5 over the limit 2"})
	contains(t, "stdout", out, []string{"client (chat endpoint=sim concurrency=1): client-bound", "timer late p50 6.5", "every percentile ± 120 ms"})
	code, out, errOut = run(verdictOf, "-allow-busy", recording.SamplesBeside(busy))
	if code != exitOK {
		t.Errorf("-allow-busy: exit %d, want 0 (the run met its SLA)\n%s%s", code, out, errOut)
	}
	contains(t, "stdout", out, []string{"client-bound, judged anyway (-allow-busy)"})

	code, _, errOut = run(baselineOf, "-from", busy, "-to", filepath.Join(t.TempDir(), "baseline.txt"))
	if code != exitBroken {
		t.Errorf("baseline of a busy run: exit %d, want 2\n%s", code, errOut)
	}
	contains(t, "stderr", errOut, []string{"not promoting", "client-bound: client-late-p50-ms"})

	for _, tc := range []struct{ base, new, side string }{{quiet, busy, "NEW " + busy}, {busy, quiet, "BASE " + busy}} {
		code, out, errOut = run(gateOf, tc.base, tc.new)
		if code != exitBroken {
			t.Errorf("gate %s %s: exit %d, want 2\n%s%s", tc.base, tc.new, code, out, errOut)
		}
		contains(t, "stderr", errOut, []string{tc.side + " Chat/endpoint=sim/concurrency=1: client-bound: client-late-p50-ms 6.5"})
	}
	if code, out, errOut = run(gateOf, "-allow-busy", quiet, busy); code == exitBroken {
		t.Errorf("gate -allow-busy: exit 2\n%s%s", out, errOut)
	}
	contains(t, "gate -allow-busy", out+errOut, []string{"compared anyway (-allow-busy)"})
}
