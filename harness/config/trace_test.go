package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/trace"
)

// loadText loads an SLA file of text from a test's directory.
func loadText(t *testing.T, text string) (*Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sla.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return LoadFile(p)
}

// TestTraceKey: trace: makes a level per speedup from the shipped trace
// (its path from the module root), a capacity search may go by speedup,
// and every mistake is the file's line and key — a bad row of the trace
// its own file and line, before any request.
func TestTraceKey(t *testing.T) {
	cfg, err := loadText(t, "scenarios:\n  chat:\n    trace: {file: traces/sample.mooncake.jsonl, speedup: [1, 2.5], end: 30s}\n    capacity: {by: speedup, max: 20}\n")
	require.NoError(t, err)
	sc := cfg.Scenarios["chat"]
	levels := sc.Levels()
	require.Len(t, levels, 2)
	assert.Equal(t, "trace=sample.mooncake/speedup=2.5", string(levels[1].Label()))
	tr := levels[0].Pacer.(load.Trace)
	assert.Equal(t, 30*time.Second, tr.Spec.End)
	assert.Equal(t, tr.Sum.Rows, sc.Requests(levels[0]), "a trace level sends its rows")
	step := sc.Capacity.Pacer(sc, 4)
	assert.Equal(t, "trace=sample.mooncake/speedup=4", string(step.Level()))

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"timestamp": 0, "input_length": 5, "output_length": 1}`+"\n"+`{"timestamp": 1, "input_length": 5}`+"\n"), 0o644))
	cases := map[string]struct{ yaml, want string }{
		"no file":      {"{speedup: 2}", ":3: scenarios.chat.trace.file: missing"},
		"unknown key":  {"{file: x, rate: 2}", ":3: scenarios.chat.trace.rate: unknown key"},
		"bad format":   {"{file: x, format: parquet}", `:3: scenarios.chat.trace.format: "parquet" is not a trace format`},
		"bad speedup":  {"{file: traces/sample.mooncake.jsonl, speedup: [2, 0]}", ":3: scenarios.chat.trace: speedup 0: want a factor > 0"},
		"bad unit":     {"{file: x, columns: {unit: hours}}", `:3: scenarios.chat.trace.columns.unit: "hours" is not a timestamp unit`},
		"missing file": {"{file: traces/none.jsonl}", ":3: scenarios.chat.trace.file: trace: open"},
		"bad row":      {"{file: " + bad + "}", ":3: scenarios.chat.trace.file: " + bad + ":2: output_length: missing"},
		"bad start":    {"{file: x, start: soon}", `:3: scenarios.chat.trace.start: "soon" is not a duration`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := loadText(t, "scenarios:\n  chat:\n    trace: "+tc.yaml+"\n")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err = loadText(t, "scenarios:\n  chat:\n    rate: 5\n    capacity: {by: speedup}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), ":4: scenarios.chat.capacity.by: a search by speedup replays a trace faster")
}

// TestLogsKey: logs.fields over the structlog defaults, and its errors.
func TestLogsKey(t *testing.T) {
	cfg, err := loadText(t, "logs:\n  window: 30m\n  fields: {ttft_ms: first_token_ms, event: \"\", timestamp_unit: s}\n")
	require.NoError(t, err)
	f := cfg.Logs.Fields()
	want := trace.DefaultLogFields()
	want.TTFT, want.Event, want.Unit = "first_token_ms", "", trace.Seconds
	assert.Equal(t, want, f)
	assert.Equal(t, 30*time.Minute, cfg.Logs.Window)
	assert.Equal(t, trace.DefaultLogFields(), (&Config{}).Logs.Fields(), "no logs: key: the structlog names")
	for name, tc := range map[string]struct{ yaml, want string }{
		"unknown field": {"logs:\n  fields: {latency: x}\n", ":2: logs.fields.latency: unknown key"},
		"empty name":    {"logs:\n  fields: {ttft_ms: \"\"}\n", ":2: logs.fields.ttft_ms: want the log's field name"},
		"bad unit":      {"logs:\n  fields: {timestamp_unit: days}\n", `:2: logs.fields.timestamp_unit: "days" is not a timestamp unit`},
		"bad window":    {"logs:\n  window: 5s\n", `:2: logs.window: 5s is not a window: want from 1m0s to a week`},
		"7m window":     {"logs:\n  window: 7m\n", `:2: logs.window: 7m0s is not a window: want from 1m0s to a week, dividing a day`},
		"zero window":   {"logs:\n  window: 0s\n", `:2: logs.window: 0s is not a window`},
		"minus window":  {"logs:\n  window: -1h\n", `:2: logs.window: -1h0m0s is not a window`},
		"not a window":  {"logs:\n  window: soon\n", `:2: logs.window: "soon" is not a duration`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadText(t, tc.yaml)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.False(t, strings.Contains(err.Error(), "panic"))
		})
	}
}
