package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFitPerRepetition: with -count 3, each repetition of a prompt-length
// sweep's fit=prompt_tokens benchmark fits its own runs, so the gate sees
// the fit vary from run to run; one fit of everything printed three times
// would look noiseless and make any change look significant.
func TestFitPerRepetition(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	yaml := "endpoints:\n  sim: {sim: \"ttft=5ms,tpot=1ms,prefill=0.02ms,jitter=0.3\"}\n" +
		"scenarios:\n  chat: {concurrency: [1], prompt_tokens: [64, 512, 2048], max_tokens: 4, sla: {}}\n"
	useConfig(t, yaml)
	code, stdout, stderr, dir := bench(t, "-count", "3", "-n", "6")
	if code != 0 {
		t.Fatalf("exit = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	txt, err := os.ReadFile(filepath.Join(dir, "latest.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var fits []float64
	for _, line := range strings.Split(string(txt), "\n") {
		if !strings.Contains(line, "/fit=prompt_tokens") {
			continue
		}
		f := strings.Fields(line)
		for i := 2; i+1 < len(f); i += 2 {
			if f[i+1] == "prefill-ms/ktok" {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				fits = append(fits, v)
			}
		}
	}
	if len(fits) != 3 {
		t.Fatalf("%d fit lines with prefill-ms/ktok, want 3 (one per -count):\n%s", len(fits), txt)
	}
	if fits[0] == fits[1] && fits[1] == fits[2] {
		t.Errorf("the three repetitions report the same fit %v: one fit of every run, repeated", fits)
	}
}
