package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// The refusals.
func TestRunBaselineRefuses(t *testing.T) {
	slaFile(t, "")
	dir := t.TempDir()
	base, err := os.ReadFile(testdata + "base.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(base), "\n")
	six := filepath.Join(dir, "six.txt") // 7 header lines, 2 endpoints
	if err := os.WriteFile(six, []byte(strings.Join(lines[:7+2*6], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dir, "baseline.txt")
	cases := map[string]struct {
		from       string
		wantStderr []string
	}{
		"six runs":     {from: six, wantStderr: []string{"has 6 runs of", "need ≥ 10", "make bench COUNT=10", "-count 10"}},
		"missing run":  {from: filepath.Join(dir, "latest.txt"), wantStderr: []string{"latest.txt", "make bench"}},
		"no samples":   {from: testdata + "base.txt", wantStderr: []string{"base.samples.jsonl"}},
		"not benchfmt": {from: testdata + "README", wantStderr: []string{"no benchmark results"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := runBaseline([]string{"-from", tc.from, "-to", to}, &stdout, &stderr); code != 2 {
				t.Errorf("exit = %d, want 2\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
			}
			contains(t, "stderr", stderr.String(), tc.wantStderr)
			if _, err := os.Stat(to); err == nil {
				t.Errorf("%s written", to)
			}
		})
	}
}

// A run that met its SLAs is promoted with its samples, samples first; a
// samples file that is not the run's (another number of runs) is refused.
func TestRunBaselinePromotes(t *testing.T) {
	slaFile(t, "")
	dir := t.TempDir()
	from := filepath.Join(dir, "latest.txt")
	var txt strings.Builder
	txt.WriteString("Unit ttft-p95-ms better=lower\n")
	f, err := sample.Create(recording.SamplesBeside(from), nil)
	if err != nil {
		t.Fatal(err)
	}
	for run := range 10 {
		fmt.Fprintf(&txt, "BenchmarkChat/endpoint=sim/concurrency=1-2\t20\t%d ttft-p95-ms\n", 20+run)
		for i := range 20 {
			d := time.Duration(20+i%5) * time.Millisecond
			f.Write(&sample.Sample{Scenario: "chat", Endpoint: "sim", Level: "concurrency=1", Run: fmt.Sprintf("r%d", run), Seq: i, Start: time.Now(),
				TTFT: d, TTFA: d, Total: d + time.Millisecond, OutputTokens: 2, Finish: "stop"})
		}
	}
	f.Close()
	if err := os.WriteFile(from, []byte(txt.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dir, "golden", "baseline.txt")
	var stdout, stderr bytes.Buffer
	if code := runBaseline([]string{"-from", from, "-to", to}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit = %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	for _, p := range []string{to, filepath.Join(dir, "golden", "baseline.samples.jsonl")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	contains(t, "stdout", stdout.String(), []string{"promoted " + from + " to " + to, "baseline.samples.jsonl"})

	// Eleven runs in the benchmark file, ten in the samples: not one run.
	if err := os.WriteFile(from, []byte(txt.String()+"BenchmarkChat/endpoint=sim/concurrency=1-2\t20\t25 ttft-p95-ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	to2 := filepath.Join(dir, "other.txt")
	stdout.Reset()
	stderr.Reset()
	if code := runBaseline([]string{"-from", from, "-to", to2}, &stdout, &stderr); code != 2 {
		t.Errorf("exit = %d, want 2\nstderr:\n%s", code, &stderr)
	}
	contains(t, "stderr", stderr.String(), []string{"has 10 runs of Chat/endpoint=sim/concurrency=1", "has 11", "not recorded together"})
	if _, err := os.Stat(to2); err == nil {
		t.Errorf("%s written", to2)
	}
}

// runCounts counts the results of each benchmark in a benchfmt file, and
// fails on a line that does not parse (bench_test.go reads an interrupted
// run's results with it).
func runCounts(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]int{}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			counts[string(rec.Name.Full())]++
		case *benchfmt.SyntaxError:
			return nil, rec
		}
	}
	return counts, r.Err()
}
