package main

import (
	"encoding/json"
	"time"

	"bytes"
	"github.com/llmsla/llmsla/harness/sample"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModelChangedMidRun: an endpoint whose responses name one model for
// its first 5 requests and another after is warned of, its figures split
// by the model served, and no verdict (exit 2) unless -allow-change,
// which judges the pooled figures (issue 29, item 5).
func TestModelChangedMidRun(t *testing.T) {
	p := recordChat(t, 0, "m")
	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i, l := range lines {
		served := `"response_model":"m-a","system_fingerprint":"fp_1",`
		if i >= 5 {
			served = `"response_model":"m-b","system_fingerprint":"fp_1",`
		}
		lines[i] = "{" + served + l[1:]
	}
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))

	var out, errOut bytes.Buffer
	code := runVerdict([]string{p}, &out, &errOut)
	assert.Equal(t, exitBroken, code, "%s\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "WARNING: endpoint sim: the model served changed during the run: m-a from request 1 (5 requests; ttft p50 20 ms, total p95 30 ms), then m-b from request 6 (15 requests;")
	assert.Contains(t, out.String(), "-allow-change judges them")
	assert.NotContains(t, out.String(), "system fingerprint served changed", "one fingerprint throughout")

	out.Reset()
	code = runVerdict([]string{"-allow-change", p}, &out, &errOut)
	assert.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "WARNING: endpoint sim: the model served changed", "judged, still said")
}

// TestFailedWarmup: a level whose warm-up had failures says so under the
// table, by kind; one whose warm-up mostly failed is no verdict (exit 2),
// however its measured requests fared (issue 29, item 6).
func TestFailedWarmup(t *testing.T) {
	for name, tc := range map[string]struct {
		failed, code int
		says         string
	}{
		"a few":  {failed: 2, code: exitOK, says: "WARNING: chat/sim/concurrency=1: 2 of 6 warm-up requests failed (connection_refused 2): its measured requests are judged"},
		"mostly": {failed: 4, code: exitBroken, says: "WARNING: chat/sim/concurrency=1: 4 of 6 warm-up requests failed (connection_refused 4): most of it failed, so the level is no verdict"},
	} {
		t.Run(name, func(t *testing.T) {
			p := recordChat(t, 0, "m")
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			t0 := time.Date(2026, 5, 6, 7, 8, 0, 0, time.UTC)
			for i := range 6 {
				s := sample.Sample{Scenario: "chat", Endpoint: "sim", Model: "m", Level: "concurrency=1", Run: "r", Seq: 100 + i, Warmup: true,
					Start: t0.Add(time.Duration(i) * time.Millisecond), TTFT: 20 * time.Millisecond, TTFA: 20 * time.Millisecond,
					Total: 30 * time.Millisecond, OutputTokens: 3, Finish: "stop"}
				if i < tc.failed {
					s = sample.Sample{Scenario: "chat", Endpoint: "sim", Model: "m", Level: "concurrency=1", Run: "r", Seq: 100 + i, Warmup: true,
						Start: s.Start, Total: time.Millisecond, ErrKind: sample.KindConnRefused, Finish: "connection_refused", Err: "connection_refused: dial tcp: connection refused"}
				}
				line, _ := json.Marshal(s)
				_, err = f.Write(append(line, '\n'))
				require.NoError(t, err)
			}
			require.NoError(t, f.Close())
			var out, errOut bytes.Buffer
			code := runVerdict([]string{p}, &out, &errOut)
			assert.Equal(t, tc.code, code, "%s\n%s", out.String(), errOut.String())
			assert.Contains(t, out.String(), tc.says)
			assert.Equal(t, tc.code == exitOK, strings.Contains(out.String(), "All SLAs met."), "a level not judged is no pass:\n%s", out.String())
			table := strings.Index(out.String(), "objectives (chat")
			assert.Less(t, table, strings.Index(out.String(), "WARNING: chat/sim"), "under the table:\n%s", out.String())
		})
	}
}

// TestModelSwappedMidRun: the simulator's swap= names another model from
// its 8th request on, as a deploy mid-run does: bench warns, splits the
// requests by the model served, and exits 2 — unless -allow-change.
func TestModelSwappedMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	useConfig(t, "endpoints:\n  sim: {sim: \"swap=8:m-b\"}\nscenarios:\n  chat: {concurrency: [1], sla: {accuracy_min: 0}}\n")
	code, stdout, stderr, _ := bench(t, "-bench", "Chat$", "-count", "1", "-n", "10", "-q")
	require.Equal(t, exitBroken, code, "%s\n%s", stdout, stderr)
	assert.Regexp(t, `WARNING: endpoint sim: the model served changed during the run: sim from request 1 \(\d+ requests?; .*\), then m-b from request \d+ \(\d+ requests; `, stdout)
	code, stdout, stderr, _ = bench(t, "-bench", "Chat$", "-count", "1", "-n", "10", "-q", "-allow-change")
	assert.Equal(t, exitOK, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "All SLAs met.")
}
