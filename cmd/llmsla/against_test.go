package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
)

// TestBenchAgainst runs bench -against on the simulator: a base of 10
// runs recorded on it, then an unchanged candidate, which the sequential
// gate must let stop before the fixed gate's 10 runs with exit 0, and one
// 25% slower in TTFT, which must exit 1 naming the figure. Whatever a
// busy machine does to the client is handled as TestGateEndToEnd does: a
// client-bound run (exit 2) is measured again, and a last refusal must be
// one the recordings bear (clientsDiffer), never a wrong verdict.
func TestBenchAgainst(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites, look by look")
	}
	const spec = "ttft=80ms,tpot=1ms,jitter=0.02"
	// The base is kept where every subtest finds it, whichever recorded it.
	kept := t.TempDir()
	record := func(t *testing.T) string {
		t.Helper()
		simEnv(t, spec)
		code, stdout, stderr, dir := benchSteady(t, "-count", "10", "-n", "10")
		if code != 0 {
			t.Fatalf("base: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		for _, f := range []string{"latest.txt", "latest.samples.jsonl"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(kept, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Join(kept, "latest.txt")
	}
	base := record(t)
	// against benches a candidate against the base; a refusal of a
	// client-bound side measures that side again, twice at most.
	against := func(t *testing.T, candidate string) (code int, out, newFile string) {
		t.Helper()
		for try := 0; ; try++ {
			simEnv(t, candidate)
			var stdout, stderr, dir string
			code, stdout, stderr, dir = bench(t, "-n", "10", "-against", base)
			out, newFile = stdout+stderr, filepath.Join(dir, "latest.txt")
			if try == 2 || code != exitBroken || !strings.Contains(out, "client-bound") {
				return code, out, newFile
			}
			t.Logf("try %d was refused as client-bound:\n%s", try+1, stderr)
			if strings.Contains(out, "unusable benchmark input: BASE ") {
				base = record(t)
			}
		}
	}
	looked := regexp.MustCompile(`(decided \w+|gate \w+) at look (\d) of 4: (\d+) of 14 runs, (\d+) requests recorded \(the fixed gate's 10 runs: (\d+)\)`)
	t.Run("unchanged stops early, exit 0", func(t *testing.T) {
		code, out, newFile := against(t, spec)
		if code == exitBroken && clientsDiffer(t, out, base, newFile) {
			t.Logf("the sides' recorded clients differ beyond the tolerance three times: refused, not judged:\n%s", out)
			return
		}
		m := looked.FindStringSubmatch(out)
		if code != exitOK || m == nil {
			t.Fatalf("exit %d, want 0 with where it stopped:\n%s", code, out)
		}
		t.Logf("%s", m[0])
		if m[1] != "decided unchanged" || m[3] == "14" {
			t.Errorf("%q: want decided unchanged before the ceiling", m[0])
		}
		// The recording is a normal recorded run, of the runs it stopped
		// at: fewer than the fixed gate's 10 of each benchmark, every one
		// a run the gate and the verdict read.
		runs, err := gate.Check(recording.File(newFile), gate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for b, n := range runs {
			if n >= 10 || m[3] != strconv.Itoa(n) {
				t.Errorf("%s: %d runs recorded, want the %s the gate stopped at, under 10", b, n, m[3])
			}
		}
		if code := runVerdict([]string{strings.TrimSuffix(newFile, ".txt") + ".samples.jsonl"}, io.Discard, io.Discard); code != exitOK {
			t.Errorf("llmsla verdict of the recording: exit %d", code)
		}
	})
	t.Run("TTFT +25% exits 1 naming it", func(t *testing.T) {
		code, out, newFile := against(t, spec+",scale=1.25")
		if code == exitBroken && clientsDiffer(t, out, base, newFile) {
			t.Logf("the sides' recorded clients differ beyond the tolerance three times: refused, not judged:\n%s", out)
			return
		}
		if code != exitViolated {
			t.Fatalf("exit %d, want 1:\n%s", code, out)
		}
		contains(t, "bench -against", out, []string{"gate FAIL", "REGRESSED", "ttft-p50-ms", "decided regressed at look"})
		t.Logf("%s", looked.FindString(out))
	})
}

// TestBenchAgainstRefuses: -against with -until decided, or with an
// explicit -count, or a base that is no recorded run, is refused before
// any request (exit 2, naming why), -dry-run prints the sequential plan.
func TestBenchAgainstRefuses(t *testing.T) {
	simEnv(t, "ttft=5ms,tpot=1ms")
	base := "../../golden/baseline.txt"
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"-until decided": {[]string{"-against", base, "-until", "decided"}, "-against ../../golden/baseline.txt with -until decided"},
		"-count":         {[]string{"-against", base, "-count", "5"}, "with -count: the sequential gate's looks decide the runs"},
		"no base":        {[]string{"-against", filepath.Join(t.TempDir(), "none.txt"), "-dry-run"}, "-against " + os.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr, dir := bench(t, tc.args...)
			if code != exitBroken || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want 2 saying %q:\n%s%s", code, tc.want, stdout, stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("refused, yet it recorded %d files", len(entries))
			}
		})
	}
	if testing.Short() {
		return // the dry run builds the suites
	}
	t.Run("stop: decided", func(t *testing.T) {
		useConfig(t, "endpoints:\n  sim: {sim: \"ttft=5ms,tpot=1ms\"}\nscenarios:\n  chat:\n    stop: decided\n    sla: {ttft_p95_ms: 600}\n")
		code, stdout, stderr, dir := bench(t, "-against", base, "-bench", "Chat$", "-dry-run")
		if want := "with scenarios.chat.stop: decided: the sequential gate decides"; code != exitBroken || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, want 2 saying %q:\n%s%s", code, want, stdout, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("refused, yet it recorded %d files", len(entries))
		}
	})
	t.Run("another model", func(t *testing.T) {
		// BASE measured another model: refused after the endpoints were
		// asked what they serve, before look 1 sends a measured request.
		b, err := os.ReadFile(base)
		if err != nil {
			t.Fatal(err)
		}
		other := filepath.Join(t.TempDir(), "other.txt")
		edited := strings.Replace(string(b), "endpoint.sim.model.id: sim\n", "endpoint.sim.model.id: other\n", 1)
		if edited == string(b) {
			t.Fatal("golden/baseline.txt has no endpoint.sim.model.id: sim line")
		}
		if err := os.WriteFile(other, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr, dir := bench(t, "-against", other, "-bench", "Chat$", "-n", "2")
		for _, want := range []string{"before any measured request", "endpoint.sim.model.id", "other", "sim"} {
			if code != exitBroken || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, want 2 saying %q:\n%s%s", code, want, stdout, stderr)
			}
		}
		if strings.Contains(stdout, "look 1 of 4") {
			t.Errorf("look 1 was sent:\n%s", stdout)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("refused, yet it recorded %d files", len(entries))
		}
	})
	code, stdout, stderr, _ := bench(t, "-against", base, "-dry-run", "-n", "20")
	if code != exitOK {
		t.Fatalf("-dry-run: exit %d:\n%s%s", code, stdout, stderr)
	}
	contains(t, "-dry-run -against", stdout, []string{"sequential: against " + base + ", looks after 3, 6, 10 and 14 runs", "look 1:  3 runs, ", "look 4: 14 runs, ", "for an unchanged candidate", "the fixed gate's 10 runs: "})
}
