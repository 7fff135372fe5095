package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
)

// The recorded runs are shared with harness/gate; see its testdata/README.
const testdata = "../../harness/gate/testdata/"

// golden is the committed baseline, with its samples.
const golden = "../../golden/baseline.txt"

// slaFile points LLMSLA_CONFIG at a file with one simulated endpoint and
// the given extra YAML, so that no sla.yaml of the developer's is read.
func slaFile(t *testing.T, extra string) string {
	t.Helper()
	return useConfig(t, "endpoints:\n  sim: {sim: \"\"}\n"+extra)
}

// useConfig writes yaml to a fresh sla.yaml, points LLMSLA_CONFIG at it
// for the test, and returns its path.
func useConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := writeConfig(t, yaml)
	t.Setenv(config.EnvConfig, p)
	return p
}

// writeConfig writes yaml to a fresh sla.yaml and returns its path.
func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sla.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunGate(t *testing.T) {
	// An objective on batch's p99, which the committed baseline's 200
	// requests a side cannot see: its blindness is not a pass.
	slaFile(t, "scenarios:\n  batch: {sla: {ttft_p99_ms: 500}}\n")
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
	nan := write("nan.txt", strings.Replace(string(base), "262.91 ttft-p95-ms", "NaN ttft-p95-ms", 1))
	results := strings.Join(lines[:len(lines)-3], "") // without PASS and ok
	cut := write("cut.txt", results[:len(results)-5])
	newer, err := os.ReadFile(testdata + "new.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The candidate with ttft +20%, cut after prod: canary never measured.
	prodOnly := write("prod.txt", strings.Join(slices.DeleteFunc(strings.SplitAfter(string(newer), "\n"), func(l string) bool { return strings.Contains(l, "canary") }), ""))

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
		"NaN value": {
			args: []string{testdata + "base.txt", nan}, wantCode: 2,
			wantStderr: []string{"nan.txt:8:", "NaN ttft-p95-ms is not a number"},
		},
		"cut short": {
			args: []string{testdata + "base.txt", cut}, wantCode: 2,
			wantStderr: []string{"cut.txt:" + strconv.Itoa(len(lines)-3) + ": the last line has no newline"},
		},
		"missing benchmark": {
			args: []string{testdata + "base.txt", prodOnly}, wantCode: 2,
			wantStderr: []string{"1 of the 2 benchmarks", "Chat/endpoint=canary/concurrency=5", "-allow-missing"},
		},
		"missing benchmark allowed": {
			args: []string{"-allow-missing", testdata + "base.txt", prodOnly}, wantCode: 1,
			wantStdout: []string{"gate FAIL", "ttft-p95-ms", "warning: Chat/endpoint=canary/concurrency=5 only in"},
		},
		"missing benchmark filtered out": {
			args: []string{"-filter", "/endpoint:prod", testdata + "base.txt", prodOnly}, wantCode: 1,
			wantStdout: []string{"gate FAIL"},
		},
		"alpha per family": {
			args: []string{"-alpha", "runs=0.01", testdata + "base.txt", testdata + "new.txt"}, wantCode: 1,
			wantStdout: []string{"runs     α=0.01"},
		},
		"alpha of no family": {
			args: []string{"-alpha", "speed=0.01", testdata + "base.txt", testdata + "new.txt"}, wantCode: 2,
			wantStderr: []string{`"speed": no such family`},
		},
		"alpha NaN": {args: []string{"-alpha", "NaN", testdata + "base.txt", testdata + "new.txt"}, wantCode: 2, wantStderr: []string{"not a significance level"}},
		"runs-only with shards": {
			args: []string{"-runs-only", dir, testdata + "new.txt"}, wantCode: 2,
			wantStderr: []string{"a directory of shards is judged on its pooled requests only"},
		},
		"filter with shards": {
			args: []string{"-filter", "/endpoint:prod", testdata + "base.txt", dir}, wantCode: 2,
			wantStderr: []string{"a directory of shards is judged on its pooled requests only"},
		},
		"alpha 0":       {args: []string{"-alpha", "0", testdata + "base.txt", testdata + "new.txt"}, wantCode: 2, wantStderr: []string{"not a significance level"}},
		"alpha runs=0":  {args: []string{"-alpha", "runs=0", testdata + "base.txt", testdata + "new.txt"}, wantCode: 2, wantStderr: []string{"not a significance level"}},
		"alpha 0.999":   {args: []string{"-alpha", "0.999", testdata + "base.txt", testdata + "new.txt"}, wantCode: 2, wantStderr: []string{"not a significance level"}},
		"one file":      {args: []string{testdata + "base.txt"}, wantCode: 2, wantStderr: []string{"usage: llmsla gate"}},
		"bad tolerance": {args: []string{"-tolerance", "ttft", "a", "b"}, wantCode: 2, wantStderr: []string{"unit=10%"}},
		// The committed baseline against itself: batch's 200 requests at
		// one level leave its p99 blind, which is not a pass.
		"blind is not a pass": {
			args: []string{golden, golden}, wantCode: 2,
			wantStdout: []string{"gate BLIND: " + golden, "; not judged, blind at these sample sizes: batch/endpoint=sim ttft-p99-ms"},
			wantStderr: []string{"llmsla gate: BLIND: 1 latency percentile could not be judged", "-allow-blind"},
		},
		"blind allowed": {
			args: []string{"-allow-blind", "*-p99-ms", golden, golden}, wantCode: 0,
			wantStdout: []string{"gate PASS: " + golden, "; blind, allowed by -allow-blind: batch/endpoint=sim ttft-p99-ms"},
		},
		"allow-blind misspelt": {
			args: []string{"-allow-blind", "ttft-p99", golden, golden}, wantCode: 2,
			wantStderr: []string{`allow-blind: "ttft-p99" matches no unit, so it allows nothing`},
		},
		// Issue 24, item 6: the misspelt key was ignored, every line
		// still read "tolerance 10% and 1".
		"misspelt tolerance": {
			args: []string{"-tolerance", "ttft-p95-msec=5%", testdata + "base.txt", testdata + "new.txt"}, wantCode: 2,
			wantStderr: []string{`-tolerance: tolerance "ttft-p95-msec=5%": "ttft-p95-msec" matches no unit`, "ttft-p95-ms, ttft-p99-ms"},
		},
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

// The gate: section of the SLA file sets the defaults; flags override them.
func TestRunGateConfig(t *testing.T) {
	base, new := testdata+"base.txt", testdata+"new.txt"
	cases := map[string]struct {
		gate       string // the gate: section
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		"config tolerance passes": {
			gate: "gate:\n  tolerance: {\"ttft-*-ms\": 30%}\n", wantCode: 0,
			wantStdout: []string{"gate PASS"},
		},
		"flag tolerance overrides config": {
			gate: "gate:\n  tolerance: {\"ttft-*-ms\": 30%}\n", args: []string{"-tolerance", "ttft-*-ms=10%"}, wantCode: 1,
			wantStdout: []string{"gate FAIL", "ttft-p95-ms", "tolerance 10%"},
		},
		"config absolute tolerance": {
			gate: "gate:\n  tolerance: {ttft-p95-ms: 100}\n", wantCode: 0,
		},
		"config alpha": {
			gate: "gate:\n  alpha: 0.01\n", wantCode: 1,
			wantStdout: []string{"α=0.01"},
		},
		"flag alpha overrides config": {
			gate: "gate:\n  alpha: 0.01\n", args: []string{"-alpha", "0.05"}, wantCode: 1,
			wantStdout: []string{"α=0.05"},
		},
		"unset API key does not matter": {
			gate: "  prod: {base_url: \"https://example.com/v1\", model: m, api_key_env: LLMSLA_TEST_UNSET_KEY}\ngate:\n  alpha: 0.01\n", wantCode: 1,
			wantStdout: []string{"α=0.01"},
		},
		"bad alpha": {
			gate: "gate:\n  alpha: 2\n", wantCode: 2,
			wantStderr: []string{"sla.yaml:4: gate.alpha"},
		},
		"negative tolerance": {
			gate: "gate:\n  tolerance: {\"*-ms\": -5%}\n", wantCode: 2,
			wantStderr: []string{"gate.tolerance.*-ms", "non-negative"},
		},
		"misspelt tolerance": {
			gate: "gate:\n  tolerance: {\"ttft-p95-msec\": 5%}\n", wantCode: 2,
			wantStderr: []string{"sla.yaml:4: gate.tolerance.ttft-p95-msec", `"ttft-p95-msec" matches no unit`},
		},
		"unknown key": {
			gate: "gate:\n  alfa: 0.01\n", wantCode: 2,
			wantStderr: []string{"sla.yaml:4: gate.alfa: unknown key"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			slaFile(t, tc.gate)
			t.Setenv("LLMSLA_TEST_UNSET_KEY", "")
			var stdout, stderr bytes.Buffer
			code := runGate(append(tc.args, base, new), &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, &stdout, &stderr)
			}
			contains(t, "stdout", stdout.String(), tc.wantStdout)
			contains(t, "stderr", stderr.String(), tc.wantStderr)
		})
	}
}

func TestRunGateMissingConfig(t *testing.T) {
	t.Setenv(config.EnvConfig, filepath.Join(t.TempDir(), "nope.yaml"))
	var stdout, stderr bytes.Buffer
	if code := runGate([]string{testdata + "base.txt", testdata + "rerun.txt"}, &stdout, &stderr); code != 2 {
		t.Errorf("exit = %d, want 2\nstderr:\n%s", code, &stderr)
	}
	contains(t, "stderr", stderr.String(), []string{"nope.yaml"})
}
