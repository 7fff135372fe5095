package main

import (
	"bytes"
	"testing"
)

func TestRunCompare(t *testing.T) {
	cases := map[string]struct {
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		"two files": {
			args: []string{testdata + "base.txt", testdata + "new.txt"}, wantCode: 0,
			wantStdout: []string{"base.txt", "new.txt", "vs base", "ttft-p95-ms"},
		},
		"endpoints side by side from one file": {
			args: []string{"-col", "/endpoint", testdata + "new.txt"}, wantCode: 0,
			wantStdout: []string{"prod", "canary", "vs base"},
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
