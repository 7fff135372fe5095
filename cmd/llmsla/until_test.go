package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/recording"
)

// TestUntilDecidedAcrossRuns: under -until decided a level's -count runs
// decide together. A level of 20 runs of 20 whose p95 objective is far
// from the simulator's (600 ms against 2 ms) stops once its runs pooled
// reach the 78 requests the p95 needs — no run alone does — as the dry
// run says before anything is sent; the runs left send nothing and are not
// recorded, so that the results file's runs are the samples' and the
// gate reads them; a later verdict of the samples says what the bench
// said; and a baseline of such a run is refused, saying why. A level whose
// objective needs more than its runs together send says it cannot stop.
func TestUntilDecidedAcrossRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	const endpoints = "endpoints:\n  sim: {sim: \"ttft=2ms,tpot=100us,jitter=0.2,tokens=4\"}\n"
	t.Run("the level cannot stop", func(t *testing.T) {
		useConfig(t, endpoints+"scenarios:\n  chat:\n    concurrency: [2]\n    sla: {ttft_p95_ms: 600, error_rate_max: 0.01}\n")
		code, stdout, stderr, _ := bench(t, "-bench", "Chat$", "-count", "10", "-n", "20", "-until", "decided", "-dry-run")
		require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
		assert.Contains(t, stdout+stderr, "stop: decided: its levels send their count (error rate ≤ 1% needs 323, more than a level's 200 in 10 runs of 20)")
	})
	useConfig(t, endpoints+"scenarios:\n  chat:\n    concurrency: [2]\n    sla: {ttft_p95_ms: 600, error_rate_max: 0.2}\n")
	args := []string{"-bench", "Chat$", "-count", "20", "-n", "20", "-until", "decided"}
	code, stdout, stderr, _ := bench(t, append(args, "-dry-run")...)
	require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout+stderr, "stop: decided: as few as 80 measured if every objective is met with room (ttft p95 ≤ 600 ms needs 78: 4 of 20 runs a level), 400 at worst")

	code, stdout, stderr, dir := benchSteady(t, args...)
	require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
	line := regexp.MustCompile(`stopped \(chat endpoint=sim concurrency=2\): decided after (\d+) of 20 runs, (\d+) of 400 requests, (\d+) saved`)
	m := line.FindStringSubmatch(stdout)
	require.NotNil(t, m, "the verdict says what the level used:\n%s", stdout)
	runs, _ := strconv.Atoi(m[1])
	sent, _ := strconv.Atoi(m[2])
	saved, _ := strconv.Atoi(m[3])
	t.Logf("%s", m[0])
	assert.GreaterOrEqual(t, runs, 4, "the p95 needs 78 requests")
	assert.LessOrEqual(t, runs, 10, "decided well before the count")
	assert.Equal(t, runs*20, sent, "each run is sent whole")
	assert.Equal(t, 400-sent, saved)

	txt, err := os.ReadFile(filepath.Join(dir, "latest.txt"))
	require.NoError(t, err)
	assert.Equal(t, runs, strings.Count(string(txt), "\nBenchmarkChat/endpoint=sim/concurrency=2-"), "the results file holds the runs sent")
	assert.NotContains(t, string(txt), recording.UnitUnsent, "a run left is not recorded")

	var out, errOut bytes.Buffer
	require.Equal(t, 0, runVerdict([]string{filepath.Join(dir, "latest.samples.jsonl")}, &out, &errOut), "%s\n%s", &out, &errOut)
	assert.Contains(t, out.String(), m[0], "a later verdict of the samples says the same")

	out.Reset()
	errOut.Reset()
	code = runBaseline([]string{"-from", filepath.Join(dir, "latest.txt"), "-to", filepath.Join(t.TempDir(), "baseline.txt")}, &out, &errOut)
	assert.Equal(t, exitBroken, code)
	assert.Contains(t, errOut.String(), "runs of Chat/endpoint=sim/concurrency=2, need ≥ 10: its levels stopped once decided", "the gate's readers read it (the same runs in both files), and a baseline says why it has too few")
}
