package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clearEnv empties the variables Load reads, for a test to set its own.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{EnvConfig, EnvEndpoints, EnvModel, EnvSim, "OPENAI_BASE_URL", "OPENAI_API_KEY"} {
		t.Setenv(k, "")
	}
}

// TestThresholdsOnlyFile: the CI split — objectives in the repository, the
// endpoint from CI's environment. A file without endpoints: takes
// OPENAI_BASE_URL and LLMSLA_MODEL, or the simulator when they are unset,
// and says which; its objectives apply.
func TestThresholdsOnlyFile(t *testing.T) {
	clearEnv(t)
	t.Setenv(EnvConfig, writeConfig(t, "scenarios:\n  chat:\n    sla: {ttft_p95_ms: 900}\n"))
	cfg, err := Load()
	require.NoError(t, err)
	require.Len(t, cfg.Endpoints, 1)
	assert.True(t, cfg.Endpoints[0].Simulated)
	assert.Contains(t, cfg.Source, "(objectives), endpoint from the built-in simulator")

	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
	t.Setenv(EnvModel, "tiny")
	cfg, err = Load()
	require.NoError(t, err)
	require.Len(t, cfg.Endpoints, 1)
	ep := cfg.Endpoints[0]
	assert.Equal(t, "default", ep.Name)
	assert.Equal(t, "tiny", ep.Model)
	assert.Equal(t, "http://127.0.0.1:11434/v1", ep.BaseURL)
	assert.Contains(t, cfg.Source, "endpoint from the environment (OPENAI_BASE_URL, LLMSLA_MODEL)")
	var ttft float64
	for _, th := range cfg.Objectives("chat", "default") {
		if th.Key() == "ttft_p95_ms" {
			ttft = th.Value
		}
	}
	assert.Equal(t, 900.0, ttft, "the file's objective applies to the environment's endpoint")

	t.Setenv(EnvModel, "")
	_, err = Load()
	assert.ErrorContains(t, err, "has no endpoints: section, so the endpoint comes from the environment: OPENAI_BASE_URL is set but LLMSLA_MODEL is not")
}

// TestEnvironmentOverriddenSaid: a file with endpoints measures them even
// when OPENAI_BASE_URL is set — and says so on the run's first lines.
func TestEnvironmentOverriddenSaid(t *testing.T) {
	clearEnv(t)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1?key=s3cret-in-the-query")
	t.Setenv(EnvConfig, writeConfig(t, "endpoints:\n  sim: {sim: \"\"}\n"))
	cfg, err := Load()
	require.NoError(t, err)
	lines := cfg.Describe()
	require.Len(t, lines, 2)
	assert.Contains(t, lines[1], "note: OPENAI_BASE_URL is set (http://127.0.0.1:9/v1) but ")
	assert.Contains(t, lines[1], "defines endpoints: measuring those")
	assert.NotContains(t, lines[1], "s3cret")
}

// TestVariablesExpanded: ${VAR} and ${VAR:-default} in the file's values
// come from the environment; an unset one without a default is an error
// naming the line and key, before any request.
func TestVariablesExpanded(t *testing.T) {
	clearEnv(t)
	t.Setenv("LLMSLA_TEST_BASE", "http://gpu-7:8000/v1")
	cfg, err := LoadFile(writeConfig(t, "endpoints:\n  prod:\n    base_url: ${LLMSLA_TEST_BASE}\n    model: ${LLMSLA_TEST_MODEL:-llama3}\n"+
		"scenarios:\n  chat:\n    samples: ${LLMSLA_TEST_SAMPLES:-7}\n"))
	require.NoError(t, err)
	assert.Equal(t, "http://gpu-7:8000/v1", cfg.Endpoints[0].BaseURL)
	assert.Equal(t, "llama3", cfg.Endpoints[0].Model)
	assert.Equal(t, 7, cfg.Scenario("chat", "prod").Samples)

	_, err = LoadFile(writeConfig(t, "endpoints:\n  prod:\n    base_url: ${LLMSLA_TEST_UNSET}\n    model: m\n"))
	assert.ErrorContains(t, err, "sla.yaml:3: endpoints.prod.base_url: ${LLMSLA_TEST_UNSET} is not set (write ${LLMSLA_TEST_UNSET:-default} for a default)")
}

// TestBudgetAndNames: a budget is read and bounded; a model name that
// would forge a benchmark line is refused.
func TestBudgetAndNames(t *testing.T) {
	clearEnv(t)
	cfg, err := LoadFile(writeConfig(t, "endpoints:\n  sim: {sim: \"\"}\nbudget: {max_requests: 5000, max_duration: 30m}\n"))
	require.NoError(t, err)
	assert.Equal(t, Budget{MaxRequests: 5000, MaxDuration: 30 * 60e9}, cfg.Budget)
	for yaml, want := range map[string]string{
		"endpoints:\n  sim: {sim: \"\"}\nbudget: {max_requests: 0}\n":                        `budget.max_requests: "0" is not a whole number from 1`,
		"endpoints:\n  sim: {sim: \"\"}\nbudget: {max_duration: forever}\n":                  `budget.max_duration: "forever" is not a duration > 0`,
		"endpoints:\n  p: {base_url: \"http://h/v1\", model: \"m\\nBenchmarkFake 1 1 x\"}\n": `endpoints.p.model: "m\nBenchmarkFake 1 1 x" holds a control character, a line break`,
	} {
		_, err := LoadFile(writeConfig(t, yaml))
		assert.ErrorContains(t, err, want)
	}
}

// TestQualityOff: quality: off is a scenario's key (an endpoint's override
// cannot set it: the fixture is built once), refuses a quality objective
// beside it, and LatencyOnly turns it on everywhere, dropping the quality
// objectives.
func TestQualityOff(t *testing.T) {
	clearEnv(t)
	cfg, err := LoadFile(writeConfig(t, "endpoints:\n  sim: {sim: \"\"}\nscenarios:\n  chat: {quality: off}\n"))
	require.NoError(t, err)
	assert.True(t, cfg.Scenario("chat", "sim").QualityOff)
	assert.False(t, cfg.Scenario("summary", "sim").QualityOff)
	for yaml, want := range map[string]string{
		"scenarios:\n  chat: {quality: maybe}\n":                                `scenarios.chat.quality: "maybe": want on or off`,
		"scenarios:\n  chat: {quality: off, sla: {accuracy_min: 0.5}}\n":        "scenarios.chat.sla.accuracy_min: quality: off judges no answer",
		"scenarios:\n  chat: {quality: off, endpoints: {sim: {quality: on}}}\n": "scenarios.chat.endpoints.sim.quality: unknown key",
	} {
		_, err := LoadFile(writeConfig(t, "endpoints:\n  sim: {sim: \"\"}\n"+yaml))
		assert.ErrorContains(t, err, want)
	}
	cfg, err = LoadFile(writeConfig(t, "endpoints:\n  sim: {sim: \"\"}\nscenarios:\n  chat: {sla: {accuracy_min: 0.5, ttft_p95_ms: 500}}\n"))
	require.NoError(t, err)
	cfg.LatencyOnly()
	sc := cfg.Scenario("chat", "sim")
	assert.True(t, sc.QualityOff)
	assert.Len(t, sc.Objectives, 3, "ttft, total and the error rate stay, accuracy goes: %v", sc.Objectives)
	assert.False(t, sc.Objectives.Has("accuracy"))
	assert.Contains(t, cfg.Describe()[len(cfg.Describe())-1], "-latency-only: no answer is judged")
}

// TestLoadErrorsRedacted: a configuration that fails to load says why
// before there is a configuration to redact with: a secret variable's
// value in the path (or quoted from the file) is redacted all the same,
// and control characters are shown, not written.
func TestLoadErrorsRedacted(t *testing.T) {
	clearEnv(t)
	const key = "sk-leak-in-a-path-0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv(EnvConfig, "/nonexistent/"+key+"/\x1b]0;x\x07sla.yaml")
	_, err := Load()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), key)
	assert.Contains(t, err.Error(), "[redacted]")
	assert.NotContains(t, err.Error(), "\x1b")
}

// TestNoSilentSimulatorInCI: what GitHub gives a step whose endpoint
// secret is unset — OPENAI_BASE_URL empty, LLMSLA_MODEL set — is an error
// naming both variables, never a run of the built-in simulator that then
// passes; and under CI the simulator is measured only when asked
// (LLMSLA_SIM set, even empty, or an SLA file's sim: endpoint).
func TestNoSilentSimulatorInCI(t *testing.T) {
	clearEnv(t)
	chdir(t, t.TempDir()) // no sla.yaml above
	thresholds := writeConfig(t, "scenarios:\n  chat:\n    sla: {ttft_p95_ms: 600}\n")
	unsetSim := func(t *testing.T) {
		old, had := os.LookupEnv(EnvSim)
		os.Unsetenv(EnvSim)
		t.Cleanup(func() {
			if had {
				os.Setenv(EnvSim, old)
			}
		})
	}
	t.Run("a model and no URL", func(t *testing.T) {
		t.Setenv(EnvModel, "gpt-4o-mini")
		for _, file := range []string{"", thresholds} {
			t.Setenv(EnvConfig, file)
			_, err := Load()
			require.Error(t, err, "config %q", file)
			assert.Contains(t, err.Error(), "LLMSLA_MODEL is set (gpt-4o-mini) but OPENAI_BASE_URL is empty or unset")
		}
	})
	t.Run("under CI, nothing configured", func(t *testing.T) {
		unsetSim(t)
		for _, env := range []string{"CI", "GITHUB_ACTIONS"} {
			t.Setenv("CI", "")
			t.Setenv("GITHUB_ACTIONS", "")
			t.Setenv(env, "true")
			for _, file := range []string{"", thresholds} {
				t.Setenv(EnvConfig, file)
				_, err := Load()
				require.Error(t, err, "%s, config %q", env, file)
				assert.Contains(t, err.Error(), "the built-in simulator is measured in CI only when asked: set LLMSLA_SIM")
			}
		}
	})
	t.Run("under CI, asked", func(t *testing.T) {
		t.Setenv("CI", "true")
		t.Setenv(EnvSim, "")
		cfg, err := Load()
		require.NoError(t, err)
		assert.True(t, cfg.Endpoints[0].Simulated)
		unsetSim(t)
		t.Setenv(EnvConfig, writeConfig(t, "endpoints:\n  sim: {sim: \"\"}\n"))
		cfg, err = Load()
		require.NoError(t, err, "an SLA file's sim: endpoint asks for it")
		assert.True(t, cfg.Endpoints[0].Simulated)
	})
}
