package gate

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func TestCompareGolden(t *testing.T) {
	cases := map[string]struct {
		opts  CompareOptions
		files []string
	}{
		"files":     {files: []string{"base.txt", "new.txt"}},
		"endpoints": {opts: CompareOptions{Col: "/endpoint"}, files: []string{"new.txt"}},
		"filtered":  {opts: CompareOptions{Col: "/endpoint", Filter: ".unit:(ttft-p95-ms OR out-tok/s)"}, files: []string{"new.txt"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var srcs []Source
			for _, f := range tc.files {
				// Relative names keep temp paths out of the golden output.
				srcs = append(srcs, Source{Name: f, Path: filepath.Join("testdata", f)})
			}
			var got bytes.Buffer
			if err := Compare(&got, tc.opts, srcs...); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "compare-"+name+".golden"), got.Bytes())
		})
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
