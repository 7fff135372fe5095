package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunCompare(t *testing.T) {
	cases := map[string]struct {
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		"two files, summary": {
			args: []string{testdata + "base.txt", testdata + "new.txt"}, wantCode: 0,
			wantStdout: []string{"base.txt → ", "new.txt: medians over runs", "Chat/endpoint=prod/concurrency=5    ttft-p95-ms  248 → 301.7", "WORSE"},
		},
		"two files, full tables": {
			args: []string{"-full", testdata + "base.txt", testdata + "new.txt"}, wantCode: 0,
			wantStdout: []string{"base.txt", "new.txt", "vs base", "ttft-p95-ms"},
		},
		"endpoints side by side from one file": {
			args: []string{"-col", "/endpoint", testdata + "new.txt"}, wantCode: 0,
			wantStdout: []string{"prod → canary", "Chat/concurrency=5"},
		},
		"endpoints, full tables": {
			args: []string{"-full", "-col", "/endpoint", testdata + "new.txt"}, wantCode: 0,
			wantStdout: []string{"prod", "canary", "vs base"},
		},
		"NaN value": {
			args: []string{testdata + "base.txt", nanFile(t)}, wantCode: 2,
			wantStderr: []string{"nan.txt:8:", "not a number"},
		},
		"no files":    {wantCode: 2, wantStderr: []string{"usage: llmsla compare"}},
		"missing":     {args: []string{"nope.txt"}, wantCode: 2, wantStderr: []string{"nope.txt"}},
		"bad project": {args: []string{"-col", "/endpoint@(", testdata + "new.txt"}, wantCode: 2, wantStderr: []string{"-col"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := runCompare(tc.args, &stdout, &stderr); code != tc.wantCode {
				t.Errorf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, &stdout, &stderr)
			}
			contains(t, "stdout", stdout.String(), tc.wantStdout)
			contains(t, "stderr", stderr.String(), tc.wantStderr)
		})
	}
}

// nanFile is testdata's base.txt with one value NaN, on which compare
// once looped forever.
func nanFile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(testdata + "base.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "nan.txt")
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "262.91 ttft-p95-ms", "NaN ttft-p95-ms", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
