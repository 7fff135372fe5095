package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVerdictsFromSamples(t *testing.T) {
	now := time.Now()
	mk := func(c int, ttft time.Duration) Sample {
		return Sample{Scenario: "chat", Endpoint: "e", Concurrency: c, Start: now, TTFT: ttft, TTFA: ttft, Total: ttft, OutputTokens: 1, Finish: "stop"}
	}
	cold := mk(1, 900*time.Millisecond)
	cold.Cold = true
	warm := mk(1, time.Hour)
	warm.Warmup = true
	samples := []Sample{cold, warm, mk(1, 100*time.Millisecond), mk(1, 120*time.Millisecond), mk(5, 700*time.Millisecond)}
	cfg := &Config{Scenarios: DefaultScenarios()}
	vs := Verdicts(cfg, samples)
	require.Len(t, vs, 2)
	assert.True(t, vs[0].OK(), "the cold 900 ms request is not in the warm p95")
	assert.Equal(t, 2, vs[0].Stats.Attempted)
	assert.False(t, vs[1].OK())

	var out bytes.Buffer
	WriteVerdicts(&out, vs)
	assert.Contains(t, out.String(), "cold start (chat endpoint=e, first request, not in the percentiles): ttft 900 ms")
	assert.Contains(t, out.String(), "chat endpoint=e concurrency=5: ttft p95 700 ms > 600 ms (n=1)")
}

func TestReadSamplesSurvivesACutLastLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	good := `{"scenario":"chat","endpoint":"e","seq":0,"t0":"2026-01-01T00:00:00Z","offset_ns":0,"total_ns":5,"output_tokens":1,"chunks":1,"finish":"stop","reused":false}`
	require.NoError(t, os.WriteFile(p, []byte(good+"\n"+good+"\n"+good[:40]), 0o644))
	s, err := ReadSamples(p)
	require.NoError(t, err)
	assert.Len(t, s, 2)

	require.NoError(t, os.WriteFile(p, []byte(good+"\n{oops\n"+good+"\n"), 0o644))
	_, err = ReadSamples(p)
	assert.ErrorContains(t, err, p+":2:")
}
