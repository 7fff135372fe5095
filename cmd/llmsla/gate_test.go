package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The recorded runs are shared with harness/gate; see its testdata/README.
const testdata = "../../harness/gate/testdata/"

func TestRunGate(t *testing.T) {
	base, err := os.ReadFile(testdata + "base.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Keep the first three runs of each endpoint: 7 header lines, 2 endpoints.
	lines := strings.SplitAfter(string(base), "\n")
	threeRuns := write("three.txt", strings.Join(lines[:7+2*3], ""))
	corrupt := write("corrupt.txt", strings.Replace(string(base), "\t20\t", "\tx20\t", 1))

	cases := map[string]struct {
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		"ttft +20% fails": {
			args: []string{testdata + "base.txt", testdata + "new.txt"}, wantCode: 1,
			wantStdout: []string{"gate FAIL", "REGRESSED", "ttft-p95-ms"},
		},
		"rerun passes": {
			args: []string{testdata + "base.txt", testdata + "rerun.txt"}, wantCode: 0,
			wantStdout: []string{"gate PASS"},
		},
		"wider tolerance passes": {
			args: []string{"-tolerance", "ttft-*-ms=30%", testdata + "base.txt", testdata + "new.txt"}, wantCode: 0,
			wantStdout: []string{"gate PASS"},
		},
		"filter to untouched units passes": {
			args: []string{"-filter", ".unit:total-p95-ms", testdata + "base.txt", testdata + "new.txt"}, wantCode: 0,
		},
		"missing file": {
			args: []string{testdata + "base.txt", filepath.Join(dir, "latest.txt")}, wantCode: 2,
			wantStderr: []string{"latest.txt", "make bench"},
		},
		"corrupt line": {
			args: []string{testdata + "base.txt", corrupt}, wantCode: 2,
			wantStderr: []string{"corrupt.txt:8:"},
		},
		"three runs": {
			args: []string{threeRuns, threeRuns}, wantCode: 2,
			wantStderr: []string{"need ≥ 4 runs per side", "-count"},
		},
		"one file":      {args: []string{testdata + "base.txt"}, wantCode: 2, wantStderr: []string{"usage: llmsla gate"}},
		"bad tolerance": {args: []string{"-tolerance", "ttft", "a", "b"}, wantCode: 2, wantStderr: []string{"unit=10%"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runGate(tc.args, &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, &stdout, &stderr)
			}
			contains(t, "stdout", stdout.String(), tc.wantStdout)
			contains(t, "stderr", stderr.String(), tc.wantStderr)
		})
	}
}

func contains(t *testing.T, what, got string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}
