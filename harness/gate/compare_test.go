package gate

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
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestCompareGolden: the full tables (compare-*.golden) and the summary
// (summary-*.golden) of the recorded runs.
func TestCompareGolden(t *testing.T) {
	type write func(io.Writer, CompareOptions, ...Source) error
	cases := map[string]struct {
		write write
		opts  CompareOptions
		files []string
	}{
		"compare-files":     {write: Compare, files: []string{"base.txt", "new.txt"}},
		"compare-endpoints": {write: Compare, opts: CompareOptions{Col: "/endpoint"}, files: []string{"new.txt"}},
		"compare-filtered":  {write: Compare, opts: CompareOptions{Col: "/endpoint", Filter: ".unit:(ttft-p95-ms OR out-tok/s)"}, files: []string{"new.txt"}},
		"summary-files":     {write: CompareSummary, files: []string{"base.txt", "new.txt"}},
		"summary-endpoints": {write: CompareSummary, opts: CompareOptions{Col: "/endpoint"}, files: []string{"new.txt"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var srcs []Source
			for _, f := range tc.files {
				// Relative names keep temp paths out of the golden output.
				srcs = append(srcs, Source{Name: f, Path: filepath.Join("testdata", f)})
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
func TestCompareSummaryOrder(t *testing.T) {
	base := "Unit ttft-p95-ms better=lower\n"
	cand := base
	for i := range 10 {
		base += fmt.Sprintf("BenchmarkA/endpoint=x-2 20 %d ttft-p95-ms 0 err-%%\nBenchmarkB/endpoint=x-2 20 %d ttft-p95-ms 0 err-%%\n", 100+i, 100+i)
		cand += fmt.Sprintf("BenchmarkA/endpoint=x-8 20 %d ttft-p95-ms 0 err-%%\nBenchmarkB/endpoint=x-8 20 %d ttft-p95-ms 0 err-%%\n", 100+i, 150+i)
	}
	var out bytes.Buffer
	if err := CompareSummary(&out, CompareOptions{}, Stream("base", strings.NewReader(base)), Stream("new", strings.NewReader(cand))); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "B/endpoint=x") || !strings.Contains(lines[1], "WORSE") ||
		!strings.HasPrefix(lines[3], "A/endpoint=x") || !strings.Contains(out.String(), "not shown, the same in every run on both sides: err-% (2)") {
		t.Errorf("summary:\n%s", out.String())
	}
}

func TestCompareUnusable(t *testing.T) {
	cases := map[string]struct {
		opts  CompareOptions
		files []string
		want  string
	}{
		"missing file":   {files: []string{"testdata/nope.txt"}, want: "testdata/nope.txt"},
		"filter nothing": {opts: CompareOptions{Filter: "/endpoint:staging"}, files: []string{"testdata/new.txt"}, want: "-filter"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var srcs []Source
			for _, f := range tc.files {
				srcs = append(srcs, File(f))
			}
			err := Compare(new(bytes.Buffer), tc.opts, srcs...)
			if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrUnusable mentioning %q", err, tc.want)
			}
		})
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
