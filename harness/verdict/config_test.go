package verdict

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/sample"
)

// selection is an SLA file with prices and an objective the presets do
// not have.
const selection = "endpoints:\n  fast: {sim: \"\", price: {input_per_mtok: 1, output_per_mtok: 2, currency: USD}}\nscenarios:\n  chat: {sla: {ttft_p95_ms: 50}}\n"

// shell points the shell's configuration at an SLA file of its own (or
// none), whatever the caller's environment says.
func shell(t *testing.T, yaml string) string {
	t.Helper()
	for _, k := range []string{config.EnvEndpoints, config.EnvSim, "OPENAI_BASE_URL"} {
		t.Setenv(k, "")
	}
	if yaml == "" {
		t.Setenv(config.EnvConfig, "")
		if root, err := config.ModuleRoot(); err == nil {
			if _, err := os.Stat(filepath.Join(root, "sla.yaml")); err == nil {
				t.Skip("an sla.yaml at the module root is the shell's configuration")
			}
		}
		return ""
	}
	p := filepath.Join(t.TempDir(), "shell.yaml")
	require.NoError(t, os.WriteFile(p, []byte(yaml), 0o644))
	t.Setenv(config.EnvConfig, p)
	return p
}

// recordRun writes a samples file of chat on endpoint fast whose first
// line records prov (nil: no record), and returns its path.
func recordRun(t *testing.T, dir string, prov sample.Provenance) string {
	t.Helper()
	var b strings.Builder
	if prov != nil {
		b.Write(prov.Record())
	}
	for i := range 20 {
		line, err := json.Marshal(sample.Sample{Scenario: "chat", Endpoint: "fast", Level: "concurrency=1", Run: "r", Seq: i, Start: time.Now(),
			TTFT: 20 * time.Millisecond, TTFA: 20 * time.Millisecond, Total: 30 * time.Millisecond, OutputTokens: 3, PromptTokens: 10,
			TokenSource: sample.TokensUsage, Finish: "stop"})
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(dir, "20260506T070809Z.samples.jsonl")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// recordedUnder is the provenance a run measured under the SLA file at
// path records (config.Record).
func recordedUnder(t *testing.T, path string) sample.Provenance {
	t.Helper()
	cfg, err := config.LoadFile(path)
	require.NoError(t, err)
	p := sample.Provenance{"client.go": "go1.26"}
	cfg.Record(p)
	return p
}

// TestAgainst (issue 29, item 9): recorded files are judged against the
// SLA file the run was measured under — its prices and objectives —
// whatever the shell's configuration is, saying so when the shell has
// another; a file changed or gone since is an error naming -config,
// which judges against any file; a run measured without an SLA file is
// judged against the presets, not the shell's file; files that recorded
// nothing are judged against the shell's configuration, and runs
// recorded under different files are an error.
func TestAgainst(t *testing.T) {
	run := filepath.Join(t.TempDir(), "selection.yaml")
	require.NoError(t, os.WriteFile(run, []byte(selection), 0o644))
	samples := recordRun(t, t.TempDir(), recordedUnder(t, run))

	shell(t, "")
	cfg, note, err := Against("", config.LoadWithoutKeys, samples)
	require.NoError(t, err)
	assert.Equal(t, run, cfg.Source)
	assert.Contains(t, cfg.Prices, "fast", "the run's prices")
	assert.Equal(t, "ttft_p95_ms", cfg.Objectives("chat", "fast")[0].Key(), "the run's objectives")
	assert.Empty(t, note)

	other := shell(t, "endpoints:\n  sim: {sim: \"\"}\n")
	cfg, note, err = Against("", config.LoadWithoutKeys, filepath.Dir(samples))
	require.NoError(t, err)
	assert.Equal(t, run, cfg.Source, "a directory's runs too")
	assert.Contains(t, note, "judged against "+run+", the SLA file the run was measured under; "+other+" is not read (-config "+other)

	cfg, _, err = Against(other, config.LoadWithoutKeys, samples)
	require.NoError(t, err)
	assert.Equal(t, other, cfg.Source, "-config names another file")

	t.Run("changed since", func(t *testing.T) {
		require.NoError(t, os.WriteFile(run, []byte(selection+"budget: {max_requests: 9}\n"), 0o644))
		defer os.WriteFile(run, []byte(selection), 0o644)
		_, _, err := Against("", config.LoadWithoutKeys, samples)
		assert.ErrorContains(t, err, run+" changed since the run was measured under it (sha256:")
		assert.ErrorContains(t, err, "-config "+run)
	})
	t.Run("gone", func(t *testing.T) {
		gone := recordRun(t, t.TempDir(), sample.Provenance{config.KeyFile: filepath.Join(t.TempDir(), "gone.yaml"), config.KeyDigest: "sha256:00"})
		_, _, err := Against("", config.LoadWithoutKeys, gone)
		assert.ErrorContains(t, err, "gone.yaml, which cannot be read")
		assert.ErrorContains(t, err, "-config FILE")
	})
	t.Run("not an SLA file", func(t *testing.T) {
		forged := recordRun(t, t.TempDir(), sample.Provenance{config.KeyFile: "/etc/passwd", config.KeyDigest: "sha256:00"})
		_, _, err := Against("", config.LoadWithoutKeys, forged)
		assert.ErrorContains(t, err, "the run records /etc/passwd as its SLA file, which is no .yaml file")
	})
	t.Run("one file's copies", func(t *testing.T) {
		// Shards on two machines: the same content under two paths.
		cp := filepath.Join(t.TempDir(), "selection.yaml")
		require.NoError(t, os.WriteFile(cp, []byte(selection), 0o644))
		shard := recordRun(t, t.TempDir(), recordedUnder(t, cp))
		require.NoError(t, os.Rename(cp, cp+".gone.yaml"))
		cfg, _, err := Against("", config.LoadWithoutKeys, shard, samples)
		require.NoError(t, err)
		assert.Equal(t, run, cfg.Source, "the copy that is there")
	})
	t.Run("two configurations pooled", func(t *testing.T) {
		sim := recordRun(t, t.TempDir(), sample.Provenance{config.KeySource: "built-in simulator"})
		_, _, err := Against("", config.LoadWithoutKeys, samples, sim)
		assert.ErrorContains(t, err, "the runs were measured under different configurations")
		assert.ErrorContains(t, err, "config.source: built-in simulator")
		assert.ErrorContains(t, err, "-config FILE")
	})
	t.Run("measured without an SLA file", func(t *testing.T) {
		sim := recordRun(t, t.TempDir(), sample.Provenance{config.KeySource: "built-in simulator (no sla.yaml, no OPENAI_BASE_URL)"})
		cfg, note, err := Against("", config.LoadWithoutKeys, sim)
		require.NoError(t, err)
		assert.Empty(t, cfg.Prices)
		assert.Equal(t, config.Presets()["chat"].Objectives, cfg.Objectives("chat", "fast"), "the presets, not the shell's file")
		assert.Contains(t, note, "judged against the presets")
		shell(t, "")
		cfg, note, err = Against("", config.LoadWithoutKeys, sim)
		require.NoError(t, err)
		assert.Equal(t, "built-in simulator (no sla.yaml, no OPENAI_BASE_URL)", cfg.Source)
		assert.Empty(t, note)
	})
	t.Run("nothing recorded", func(t *testing.T) {
		p := shell(t, selection)
		cfg, _, err := Against("", config.LoadWithoutKeys, recordRun(t, t.TempDir(), nil))
		require.NoError(t, err)
		assert.Equal(t, p, cfg.Source, "the shell's")
	})
}
