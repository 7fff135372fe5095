package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The refusals; promotion itself is exercised by make baseline (see
// docs/gate.md), as it needs a samples file that met its SLAs.
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
		"six runs":     {from: six, wantStderr: []string{"has 6 runs of", "need ≥ 10", "-count 10"}},
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
