package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestConversationPlan: the plan's request count holds for a level of
// conversations too — -n requests a run laid out over conversations, the
// last cut to what is left — and the run's verdict shows the turns.
func TestConversationPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	base, truth := countingSim(t, "ttft=2ms,tpot=0s")
	simEnv(t, "")
	// The simulator is not the session's: it answers lorem, and accuracy
	// is said out loud not to matter.
	useConfig(t, fmt.Sprintf("endpoints:\n  far: {base_url: %q, model: sim}\nscenarios:\n  conversation: {sessions: [2], warmup: 1, max_tokens: 8, sla: {accuracy_min: 0}}\n", base))
	code, stdout, stderr, dir := bench(t, "-bench", "Conversation", "-count", "2", "-n", "7", "-q")
	require.Equal(t, exitOK, code, "%s\n%s", stdout, stderr)
	// 2 runs of 7: 14 measured; cold 1 + warm-up max(1, 2 conversations
	// in flight) + 2 probes.
	assert.Contains(t, stdout, "total: 19 requests (14 measured, 5 probes, warm-up and cold)")
	// The expected duration counts the fixture's think times: 2 runs of
	// ⌈7/2⌉ turns a user, each with about 60 ms of thinking (without
	// them, 2 runs of 4 latencies of a few ms: about 30 ms).
	m := regexp.MustCompile(`conversation far +sessions=2 +14 measured \+ 5 other, ≈ (\S+) `).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	d, err := time.ParseDuration(m[1])
	require.NoError(t, err)
	assert.Greater(t, d, 300*time.Millisecond, "the plan's estimate leaves out the think times")
	samples, err := sample.Read(filepath.Join(dir, "latest.samples.jsonl"))
	require.NoError(t, err)
	assert.Len(t, samples, 19, "the samples the plan announced")
	assert.Len(t, truth(), 19+2, "the run's requests, the preflight's and one probe")
	turns := 0
	for _, s := range samples {
		if s.Measured() && s.Turn > 1 {
			turns++
		}
	}
	assert.Greater(t, turns, 7, "later turns were sent")
	assert.Contains(t, stdout, "conversations (conversation endpoint=far sessions=2): ")
	assert.Contains(t, stdout, "ttft p50/p95 by turn: 1: ")
}
