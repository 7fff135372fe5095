package harness

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sla.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestConfigFile(t *testing.T) {
	t.Setenv("TEST_LLMSLA_KEY", "sk-from-env")
	p := writeConfig(t, `
endpoints:
  prod:
    base_url: https://api.example.com/v1
    model: m1
    api_key_env: TEST_LLMSLA_KEY
    headers: {X-Team: ml}
    timeouts: {headers: 5s, idle: 2s, total: 1m}
  local:
    sim: "ttft=10ms"
scenarios:
  chat:
    samples: 7
    concurrency: [1, 4]
    sla: {ttft_p95_ms: 400}
    endpoints:
      local: {sla: {ttft_p99_ms: 50}, concurrency: 2}
gate: {alpha: 0.01, tolerance: {"*-ms": 5%}}
`)
	t.Setenv(EnvConfig, p)
	t.Setenv(EnvEndpoints, "")
	cfg, err := LoadConfig()
	require.NoError(t, err)
	require.Len(t, cfg.Endpoints, 2)
	prod := cfg.Endpoints[0]
	assert.Equal(t, "sk-from-env", prod.APIKey)
	assert.Equal(t, Timeouts{5 * time.Second, 2 * time.Second, time.Minute}, prod.Timeouts)
	assert.True(t, cfg.Endpoints[1].Simulated)

	chat := cfg.Scenario("chat", "prod")
	assert.Equal(t, 7, chat.Samples)
	assert.Equal(t, []int{1, 4}, chat.Concurrency)
	lim, _ := chat.SLA.Limit("ttft")
	assert.Equal(t, 400.0, lim, "file overrides the default 600")
	lim, _ = chat.SLA.Limit("total")
	assert.Equal(t, 8000.0, lim, "defaults not named in the file stay")

	local := cfg.Scenario("chat", "local")
	assert.Equal(t, []int{2}, local.Concurrency)
	assert.Equal(t, 7, local.Samples, "per-endpoint settings start from the scenario's")
	assert.Len(t, local.SLA, len(chat.SLA)+1)
	assert.Equal(t, 0.01, cfg.Gate.Alpha)

	t.Setenv(EnvEndpoints, "local")
	cfg, err = LoadConfig()
	require.NoError(t, err)
	assert.Equal(t, []string{"local"}, cfg.EndpointNames())
}

// TestConfigErrors: every mistake is reported with file, line and key, and
// what is allowed, before anything is sent.
func TestConfigErrors(t *testing.T) {
	cases := map[string]struct {
		yaml string
		want []string
	}{
		"unknown top key":      {"endpoint:\n  a: {base_url: http://x/v1, model: m}\n", []string{":1: endpoint: unknown key (allowed: endpoints, scenarios, gate)"}},
		"unknown endpoint key": {"endpoints:\n  a:\n    base_url: http://x/v1\n    model: m\n    modle: n\n", []string{":5: endpoints.a.modle: unknown key (allowed: base_url, model"}},
		"bad url":              {"endpoints:\n  a: {base_url: ftp://x, model: m}\n", []string{":2: endpoints.a.base_url:", "not an http(s) URL"}},
		"missing model":        {"endpoints:\n  a: {base_url: http://x/v1}\n", []string{"endpoints.a.model: missing"}},
		"unknown metric": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    sla:\n      ttft_p96_ms: 5\n",
			[]string{":6: scenarios.chat.sla.ttft_p96_ms: unknown metric (allowed: <ttft|ttfa|total|tpot|itl>_p<50|90|95|99>_ms"}},
		"rate over 1": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    sla: {error_rate_max: 5}\n",
			[]string{"scenarios.chat.sla.error_rate_max: 5 is not a fraction"}},
		"not a number": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    sla: {ttft_p95_ms: fast}\n",
			[]string{`scenarios.chat.sla.ttft_p95_ms: "fast" is not a number`}},
		"bad concurrency": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {concurrency: [1, 0]}\n",
			[]string{`scenarios.chat.concurrency: "0" is not a whole number ≥ 1`}},
		"bad duration": {"endpoints:\n  a: {base_url: http://x/v1, model: m, timeouts: {idle: soon}}\n",
			[]string{`endpoints.a.timeouts.idle: "soon" is not a duration`}},
		"key in headers": {"endpoints:\n  a: {base_url: http://x/v1, model: m, headers: {Authorization: Bearer sk-123}}\n",
			[]string{"endpoints.a.headers.Authorization: put the key in the environment"}},
		"unknown endpoint override": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    endpoints:\n      b: {samples: 3}\n",
			[]string{`scenarios.chat.endpoints.b: no endpoint named "b" (have: a)`}},
		"bad sim spec": {"endpoints:\n  s: {sim: \"ttft=fast\"}\n", []string{"endpoints.s.sim:"}},
		"bad max tokens param": {"endpoints:\n  a: {base_url: http://x/v1, model: m, max_tokens_param: max_output_tokens}\n",
			[]string{`endpoints.a.max_tokens_param: "max_output_tokens" is not a parameter (allowed: max_tokens, max_completion_tokens)`}},
		"two errors": {"endpoints:\n  a: {base_url: http://x/v1, model: m, kind: vllm}\ngate: {alpha: 2}\n", []string{"2 errors", "endpoints.a.kind", "gate.alpha"}},
		"not yaml":   {"endpoints: [\n", []string{"sla.yaml"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			_, err := LoadConfigFile(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p, "names the file")
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestConfigMissingKeyEnv(t *testing.T) {
	p := writeConfig(t, "endpoints:\n  a: {base_url: http://x/v1, model: m, api_key_env: TEST_LLMSLA_UNSET_KEY}\n")
	t.Setenv(EnvConfig, p)
	t.Setenv(EnvEndpoints, "")
	os.Unsetenv("TEST_LLMSLA_UNSET_KEY")
	_, err := LoadConfig()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "endpoints.a.api_key_env: environment variable TEST_LLMSLA_UNSET_KEY is not set")

	t.Setenv(EnvEndpoints, "nope")
	_, err = LoadConfig()
	assert.ErrorContains(t, err, `endpoint "nope" is not in`)
}

func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv(EnvConfig, "")
	t.Setenv(EnvEndpoints, "")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("OPENAI_API_KEY", "sk-env")
	t.Setenv(EnvModel, "gpt-x")
	chdir(t, t.TempDir()) // no sla.yaml above
	cfg, err := LoadConfig()
	require.NoError(t, err)
	require.Equal(t, []string{"default"}, cfg.EndpointNames())
	assert.Equal(t, "sk-env", cfg.Endpoints[0].APIKey)
	assert.NotContains(t, cfg.Describe(), "sk-env")

	t.Setenv(EnvModel, "")
	_, err = LoadConfig()
	assert.ErrorContains(t, err, "LLMSLA_MODEL is not")

	t.Setenv("OPENAI_BASE_URL", "")
	cfg, err = LoadConfig()
	require.NoError(t, err)
	assert.True(t, cfg.Endpoints[0].Simulated)
	assert.Contains(t, cfg.Describe(), "built-in simulator")
}

func chdir(t *testing.T, dir string) {
	t.Helper()
	old, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	t.Cleanup(func() { os.Chdir(old) })
}

func TestThresholdCheck(t *testing.T) {
	sla, err := ParseSLA(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01, "accuracy_min": 0.9})
	require.NoError(t, err)
	st := &Stats{Attempted: 40, Failed: 2}
	st.TTFT.N, st.TTFT.P95 = 38, 712
	vs := sla.Check(st)
	var lines []string
	for _, v := range vs {
		lines = append(lines, v.String())
	}
	assert.ElementsMatch(t, []string{
		"ttft p95 712 ms > 600 ms (n=38)",
		"error rate 5% > 1% (n=40)",
		"accuracy not measured, want ≥ 90% (n=0)",
	}, lines)
}

// TestConfigPathRelativeToModuleRoot: LLMSLA_CONFIG=sla.example.yaml typed
// at the repository root still finds the file from a package directory.
func TestConfigPathRelativeToModuleRoot(t *testing.T) {
	t.Setenv(EnvConfig, "sla.example.yaml")
	root, err := ModuleRoot()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "sla.example.yaml"), ConfigPath())
	cfg, err := LoadConfigFile(ConfigPath())
	require.NoError(t, err, "the shipped example loads")
	assert.Contains(t, cfg.EndpointNames(), "local")
}

func TestConfigBadSimSpecFromEnvironment(t *testing.T) {
	t.Setenv(EnvConfig, "")
	t.Setenv(EnvEndpoints, "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv(EnvSim, "tttft=5ms")
	chdir(t, t.TempDir())
	_, err := LoadConfig()
	assert.ErrorContains(t, err, `LLMSLA_SIM: sim: bad config: spec item "tttft=5ms": unknown key "tttft"`)
}
