package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/server"
)

// serverConfig is two simulators whose /metrics is read every 20 ms: one
// that tells the truth, one whose TTFT histogram says twice the real one
// (50 ms, in vLLM's bucket (40, 60] ms, said to be 100: (80, 100]); chat
// bounds the KV cache, which only the server's metrics measure.
const serverConfig = `endpoints:
  honest: {sim: "ttft=50ms,tpot=2ms,jitter=0.05", server_metrics: {every: 20ms}}
  liar:   {sim: "ttft=50ms,tpot=2ms,jitter=0.05,metrics_lie=2", server_metrics: {every: 20ms}}
scenarios:
  chat: {concurrency: [3], warmup: 0, sla: {kv_cache_max: 0.9, error_rate_max: 0}}
`

// TestBenchServerMetrics: llmsla bench records each level's server
// readings beside its samples, its verdict shows a server line per level
// and fails the simulator whose histogram lies, naming the disagreement;
// llmsla verdict judges the same from the files, and without the server
// file the server objective fails as not measured rather than passing.
func TestBenchServerMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the chat suite on two simulated endpoints")
	}
	reportEnv(t, serverConfig)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := runBench([]string{"-pkg", suites, "-bench", "Chat", "-count", "1", "-n", "20", "-q", "-out", dir}, &out, &errOut)
	require.Equal(t, 1, code, "the liar fails\nstdout:\n%s\nstderr:\n%s", &out, &errOut)
	text := out.String()
	assert.Regexp(t, `server \(chat endpoint=honest concurrency=3\): queue p95 [\d.]+ max [\d.]+, running max [\d.]+, kv peak `, text)
	assert.Contains(t, text, "chat endpoint=liar concurrency=3: ttft gap ")
	assert.Contains(t, text, "client and server disagree about TTFT: client ttft p50")
	assert.NotContains(t, text, "chat endpoint=honest concurrency=3: ttft gap")

	samples := filepath.Join(dir, "latest.samples.jsonl")
	readings, err := server.Read(filepath.Join(dir, "latest.server.jsonl"))
	require.NoError(t, err)
	assert.NotEmpty(t, readings)

	var vout, verr bytes.Buffer
	require.Equal(t, 1, runVerdict([]string{samples}, &vout, &verr), verr.String())
	assert.Contains(t, vout.String(), "client and server disagree about TTFT")
	assert.Regexp(t, `server \(chat endpoint=honest concurrency=3\): queue p95`, vout.String())

	require.NoError(t, os.Remove(filepath.Join(dir, "latest.server.jsonl")))
	vout.Reset()
	require.Equal(t, 1, runVerdict([]string{samples}, &vout, &verr), verr.String())
	assert.Contains(t, vout.String(), "chat endpoint=honest concurrency=3: kv cache not measured, want ≤ 90%")
	assert.NotContains(t, vout.String(), "disagree about TTFT", "no server file: no server figure to disagree with")
}
