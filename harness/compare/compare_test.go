package compare

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/recording"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// recordings holds the recorded runs the tables are drawn from, shared
// with the gate's tests (see its README).
const recordings = "../gate/testdata/"

// TestCompareGolden: the full tables (compare-*.golden) and the summary
// (summary-*.golden) of the recorded runs.
func TestCompareGolden(t *testing.T) {
	type write func(io.Writer, Options, ...recording.Source) error
	cases := map[string]struct {
		write write
		opts  Options
		files []string
	}{
		"compare-files":     {write: Tables, files: []string{"base.txt", "new.txt"}},
		"compare-endpoints": {write: Tables, opts: Options{Col: "/endpoint"}, files: []string{"new.txt"}},
		"compare-filtered":  {write: Tables, opts: Options{Col: "/endpoint", Filter: ".unit:(ttft-p95-ms OR out-tok/s)"}, files: []string{"new.txt"}},
		"summary-files":     {write: Summary, files: []string{"base.txt", "new.txt"}},
		"summary-endpoints": {write: Summary, opts: Options{Col: "/endpoint"}, files: []string{"new.txt"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var srcs []recording.Source
			for _, f := range tc.files {
				// Relative names keep temp paths out of the golden output.
				srcs = append(srcs, recording.Source{Name: f, Path: recordings + f})
			}
			var got bytes.Buffer
			if err := tc.write(&got, tc.opts, srcs...); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", name+".golden"), got.Bytes())
		})
	}
}

// The summary puts significant changes first and leaves out figures that
// are the same everywhere; benchmarks recorded at another GOMAXPROCS line
// up.
func TestSummaryOrder(t *testing.T) {
	base := "Unit ttft-p95-ms better=lower\n"
	cand := base
	for i := range 10 {
		base += fmt.Sprintf("BenchmarkA/endpoint=x-2 20 %d ttft-p95-ms 0 err-%%\nBenchmarkB/endpoint=x-2 20 %d ttft-p95-ms 0 err-%%\n", 100+i, 100+i)
		cand += fmt.Sprintf("BenchmarkA/endpoint=x-8 20 %d ttft-p95-ms 0 err-%%\nBenchmarkB/endpoint=x-8 20 %d ttft-p95-ms 0 err-%%\n", 100+i, 150+i)
	}
	var out bytes.Buffer
	if err := Summary(&out, Options{}, recording.Stream("base", strings.NewReader(base)), recording.Stream("new", strings.NewReader(cand))); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "B/endpoint=x") || !strings.Contains(lines[1], "WORSE") ||
		!strings.HasPrefix(lines[3], "A/endpoint=x") || !strings.Contains(out.String(), "not shown, the same in every run on both sides: err-% (2)") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// With too few runs a side no p can reach alpha: the summary says so
// instead of a bare p=1.000 (issue 24, item 11), and from how many runs a
// side it would be possible.
func TestSummaryFewRuns(t *testing.T) {
	runs := func(n int, ttft float64) string {
		var b strings.Builder
		b.WriteString("Unit ttft-p95-ms better=lower\n")
		for i := range n {
			fmt.Fprintf(&b, "BenchmarkChat/endpoint=x-2 20 %g ttft-p95-ms\n", ttft+float64(i))
		}
		return b.String()
	}
	cases := map[string]struct {
		base, new int
		blind     bool
	}{
		"one run a side":    {1, 1, true},
		"three runs a side": {3, 3, true},
		"one against ten":   {1, 10, true},
		"four runs a side":  {4, 4, false},
		"ten runs a side":   {10, 10, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := Summary(&out, Options{}, recording.Stream("base", strings.NewReader(runs(tc.base, 100))), recording.Stream("new", strings.NewReader(runs(tc.new, 200))))
			if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			n := fmt.Sprintf("n=%d+%d", tc.base, tc.new)
			note := "p=–: no significance is possible with so few runs"
			if tc.blind {
				if !strings.Contains(got, "p=–  "+n) || !strings.Contains(got, note) || !strings.Contains(got, "until 4 runs a side; record at least 4") || strings.Contains(got, "WORSE") {
					t.Errorf("want p=– for %s, the note and no mark:\n%s", n, got)
				}
				return
			}
			if strings.Contains(got, "p=–") || !strings.Contains(got, "WORSE") {
				t.Errorf("want a p and WORSE for %s:\n%s", n, got)
			}
		})
	}
}

// What the gate refuses, compare refuses: it reads through the same
// loader. A NaN once made benchmath loop forever here.
func TestCompareUnusable(t *testing.T) {
	base, err := os.ReadFile(recordings + "base.txt")
	if err != nil {
		t.Fatal(err)
	}
	nan := filepath.Join(t.TempDir(), "nan.txt")
	if err := os.WriteFile(nan, []byte(strings.Replace(string(base), "262.91 ttft-p95-ms", "NaN ttft-p95-ms", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		opts  Options
		files []string
		want  string
	}{
		"missing file":   {files: []string{"testdata/nope.txt"}, want: "testdata/nope.txt"},
		"filter nothing": {opts: Options{Filter: "/endpoint:staging"}, files: []string{recordings + "new.txt"}, want: "-filter"},
		"NaN value":      {files: []string{recordings + "base.txt", nan}, want: "nan.txt:8: Chat/endpoint=prod/concurrency=5-2 NaN ttft-p95-ms is not a number"},
	}
	for name, tc := range cases {
		for what, describe := range map[string]func(io.Writer, Options, ...recording.Source) error{"Tables": Tables, "Summary": Summary} {
			t.Run(name+"/"+what, func(t *testing.T) {
				var srcs []recording.Source
				for _, f := range tc.files {
					srcs = append(srcs, recording.File(f))
				}
				done := make(chan error, 1)
				go func() { done <- describe(new(bytes.Buffer), tc.opts, srcs...) }()
				select {
				case err := <-done:
					if !errors.Is(err, recording.ErrUnusable) || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("err = %v, want ErrUnusable mentioning %q", err, tc.want)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("did not return within 20s")
				}
			})
		}
	}
}

// golden compares got with the file at path; on mismatch it writes
// path.got beside it so the two can be diffed.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(path+".got", got, 0o644)
		t.Errorf("output differs from %s; see %s.got:\n%s", path, path, got)
	}
}
