package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
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
	cfg, err := Load()
	require.NoError(t, err)
	require.Len(t, cfg.Endpoints, 2)
	prod := cfg.Endpoints[0]
	assert.Equal(t, "sk-from-env", prod.APIKey)
	assert.Equal(t, stream.Timeouts{Headers: 5 * time.Second, Idle: 2 * time.Second, Total: time.Minute}, prod.Timeouts)
	assert.True(t, cfg.Endpoints[1].Simulated)

	chat := cfg.Scenario("chat", "prod")
	assert.Equal(t, 7, chat.Samples)
	assert.Equal(t, []load.Pacer{load.Closed(1), load.Closed(4)}, chat.Loads)
	assert.Equal(t, 400.0, bound(t, chat.Objectives, "ttft_p95_ms"), "file overrides the default 600")
	assert.Equal(t, 8000.0, bound(t, chat.Objectives, "total_p95_ms"), "defaults not named in the file stay")

	local := cfg.Scenario("chat", "local")
	assert.Equal(t, []load.Pacer{load.Closed(2)}, local.Loads)
	assert.Equal(t, 7, local.Samples, "per-endpoint settings start from the scenario's")
	assert.Len(t, local.Objectives, len(chat.Objectives)+1)
	assert.Equal(t, 0.01, cfg.Gate.Alpha)

	t.Setenv(EnvEndpoints, "local")
	cfg, err = Load()
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
		"unknown top key":      {"endpoint:\n  a: {base_url: http://x/v1, model: m}\n", []string{":1: endpoint: unknown key (allowed: endpoints, scenarios, gate, budget, judge, logs)"}},
		"unknown endpoint key": {"endpoints:\n  a:\n    base_url: http://x/v1\n    model: m\n    modle: n\n", []string{":5: endpoints.a.modle: unknown key (allowed: base_url, model"}},
		"bad url":              {"endpoints:\n  a: {base_url: ftp://x, model: m}\n", []string{":2: endpoints.a.base_url:", "not an http(s) URL"}},
		"missing model":        {"endpoints:\n  a: {base_url: http://x/v1}\n", []string{"endpoints.a.model: missing"}},
		"unknown metric": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    sla:\n      ttft_p96_ms: 5\n",
			[]string{":6: scenarios.chat.sla.ttft_p96_ms: unknown metric (allowed: <ttft|ttfa|total|tpot|itl|lag|ttft_sched|ttfa_sched|total_sched|ttftool|tool_done|agent_total|ttft_hit|ttft_miss|session_total|"}},
		"unknown cache policy": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    cache: cold\n",
			[]string{`:5: scenarios.chat.cache: "cold" is not a cache policy (allowed: natural`, "bust", "warm"}},
		"prefix without warm": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    prefix_tokens: 512\n",
			[]string{":5: scenarios.chat.prefix_tokens: sizes the shared prefix of cache: warm; set cache: warm too (cache is bust)"}},
		"prefix too short": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    cache: warm\n    prefix_tokens: 8\n",
			[]string{`:6: scenarios.chat.prefix_tokens: "8" is not a whole number from 16 to`}},
		"warm over a sweep": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    cache: warm\n    prompt_tokens: [128, 1024]\n",
			[]string{":5: scenarios.chat.cache: warm puts a shared prefix before the fixture's cases, and a prompt_tokens sweep"}},
		"rate over 1": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    sla: {error_rate_max: 5}\n",
			[]string{"scenarios.chat.sla.error_rate_max: 5 is not a fraction"}},
		"not a number": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    sla: {ttft_p95_ms: fast}\n",
			[]string{`scenarios.chat.sla.ttft_p95_ms: "fast" is not a number`}},
		"bad concurrency": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {concurrency: [1, 0]}\n",
			[]string{`scenarios.chat.concurrency: "0" is not a whole number from 1 to 100000`}},
		"impossible samples": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {samples: 1000000000}\n",
			[]string{`:4: scenarios.chat.samples: "1000000000" is not a whole number from 1 to 1000000`}},
		"bad rate": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {rate: [2, 0]}\n",
			[]string{`:4: scenarios.chat.rate: "0" is not a rate`}},
		"bad arrival": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {rate: 5, arrival: bursty}\n",
			[]string{`scenarios.chat.arrival: "bursty" is not an arrival process (allowed: constant, poisson, gamma)`}},
		"burstiness without gamma": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {rate: 5, burstiness: 0.5}\n",
			[]string{"scenarios.chat.burstiness: only gamma arrivals have a burstiness"}},
		"samples and duration": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {samples: 5, duration: 10m}\n",
			[]string{"scenarios.chat.samples: set samples or duration, not both"}},
		"cap without rate": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {max_concurrency: 4}\n",
			[]string{"scenarios.chat.max_concurrency: caps an open loop"}},
		"short prompt": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {prompt_tokens: [8]}\n",
			[]string{`scenarios.chat.prompt_tokens: "8" is not a whole number from 16`}},
		"repeated key": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    samples: 5\n    samples: 7\n",
			[]string{":6: scenarios.chat.samples: repeated key (first at line 5)"}},
		"repeated section": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {samples: 5}\nscenarios:\n  summary: {samples: 5}\n",
			[]string{":5: scenarios: repeated key (first at line 3)"}},
		"endpoint name with newline": {"endpoints:\n  \"a\\nBenchmarkFake 1 2 ns/op\": {base_url: http://x/v1, model: m}\n",
			[]string{"is not a name"}},
		"endpoint name with dots": {"endpoints:\n  ../../etc: {base_url: http://x/v1, model: m}\n", []string{"endpoints.../../etc", "is not a name"}},
		"negative tolerance": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\ngate: {tolerance: {\"*-ms\": -5%}}\n",
			[]string{":3: gate.tolerance.*-ms:"}},
		"bad tolerance glob": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\ngate: {tolerance: {\"[x\": 5%}}\n",
			[]string{"gate.tolerance.[x:"}},
		"bad duration": {"endpoints:\n  a: {base_url: http://x/v1, model: m, timeouts: {idle: soon}}\n",
			[]string{`endpoints.a.timeouts.idle: "soon" is not a duration`}},
		"key in headers": {"endpoints:\n  a: {base_url: http://x/v1, model: m, headers: {Authorization: Bearer sk-123}}\n",
			[]string{"endpoints.a.headers.Authorization: put the key in the environment"}},
		"unknown endpoint override": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat:\n    endpoints:\n      b: {samples: 3}\n",
			[]string{`:6: scenarios.chat.endpoints.b: no endpoint named "b" (have: a)`}},
		"bad sim spec": {"endpoints:\n  s: {sim: \"ttft=fast\"}\n", []string{"endpoints.s.sim:"}},
		"bad api": {"endpoints:\n  a: {base_url: http://x/v1, model: m, api: anthropic}\n",
			[]string{`:2: endpoints.a.api: "anthropic" is not an API (allowed: chat, responses, messages, embeddings)`}},
		"anthropic_version off messages": {"endpoints:\n  a: {base_url: http://x/v1, model: m, api: responses, anthropic_version: 2023-06-01}\n",
			[]string{`endpoints.a.anthropic_version: only for api: messages (this endpoint's api is responses)`}},
		"bad anthropic_version": {"endpoints:\n  a: {base_url: http://x/v1, model: m, api: messages, anthropic_version: latest}\n",
			[]string{`endpoints.a.anthropic_version: "latest" is not a version (a date, e.g. 2023-06-01)`}},
		"fixed length off chat": {"endpoints:\n  a: {base_url: http://x/v1, model: m, kind: vllm, api: responses}\nscenarios:\n  chat:\n    output_tokens: {fixed: 64}\n",
			[]string{`scenarios.chat.output_tokens.fixed: endpoint a is api: responses, which has no parameter of a fixed answer length`}},
		"max_tokens_param off chat": {"endpoints:\n  a: {base_url: http://x/v1, model: m, api: messages, max_tokens_param: max_tokens}\n",
			[]string{`endpoints.a.max_tokens_param: only for api: chat`}},
		"bad max tokens param": {"endpoints:\n  a: {base_url: http://x/v1, model: m, max_tokens_param: max_output_tokens}\n",
			[]string{`endpoints.a.max_tokens_param: "max_output_tokens" is not a parameter (allowed: max_tokens, max_completion_tokens)`}},
		"two errors": {"endpoints:\n  a: {base_url: http://x/v1, model: m, kind: tgi}\ngate: {alpha: 2}\n", []string{"2 errors", "endpoints.a.kind", "gate.alpha"}},
		"not yaml":   {"endpoints: [\n", []string{"sla.yaml"}},
		"empty file": {"# nothing\n", []string{"empty file"}},
		"second document": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\n---\nscenarios:\n  chat: {sla: {ttft_p95_ms: 1}}\n",
			[]string{":3: a second YAML document (after ---) would be ignored"}},
		"bad second document": {"endpoints:\n  a: {base_url: http://x/v1, model: m}\n---\nscenarios: [\n",
			[]string{"a second YAML document: yaml: line"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			_, err := LoadFile(p)
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
	_, err := Load()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "endpoints.a.api_key_env: environment variable TEST_LLMSLA_UNSET_KEY is not set")

	t.Setenv(EnvEndpoints, "nope")
	_, err = Load()
	assert.ErrorContains(t, err, `endpoint "nope" is not in`)
}

func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv(EnvConfig, "")
	t.Setenv(EnvEndpoints, "")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("OPENAI_API_KEY", "sk-env")
	t.Setenv(EnvModel, "gpt-x")
	chdir(t, t.TempDir()) // no sla.yaml above
	cfg, err := Load()
	require.NoError(t, err)
	require.Equal(t, []string{"default"}, cfg.EndpointNames())
	assert.Equal(t, "sk-env", cfg.Endpoints[0].APIKey)
	assert.NotContains(t, cfg.Describe(), "sk-env")

	t.Setenv(EnvModel, "")
	_, err = Load()
	assert.ErrorContains(t, err, "LLMSLA_MODEL is not")

	t.Setenv("OPENAI_BASE_URL", "")
	cfg, err = Load()
	require.NoError(t, err)
	assert.True(t, cfg.Endpoints[0].Simulated)
	assert.Contains(t, cfg.Describe()[0], "built-in simulator")
}

func chdir(t *testing.T, dir string) {
	t.Helper()
	old, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	t.Cleanup(func() { os.Chdir(old) })
}

// bound is the value of the objective with key in o.
func bound(t *testing.T, o objective.Objectives, key string) float64 {
	t.Helper()
	for _, th := range o {
		if th.Key() == key {
			return th.Value
		}
	}
	t.Fatalf("no objective %s in %v", key, o)
	return 0
}

// TestConfigPathRelativeToModuleRoot: LLMSLA_CONFIG=sla.example.yaml typed
// at the repository root still finds the file from a package directory.
func TestConfigPathRelativeToModuleRoot(t *testing.T) {
	t.Setenv(EnvConfig, "sla.example.yaml")
	root, err := ModuleRoot()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "sla.example.yaml"), Path())
	cfg, err := LoadFile(Path())
	require.NoError(t, err, "the shipped example loads")
	assert.Contains(t, cfg.EndpointNames(), "local")
}

func TestConfigBadSimSpecFromEnvironment(t *testing.T) {
	t.Setenv(EnvConfig, "")
	t.Setenv(EnvEndpoints, "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv(EnvSim, "tttft=5ms")
	chdir(t, t.TempDir())
	_, err := Load()
	assert.ErrorContains(t, err, `LLMSLA_SIM: sim: bad config: spec item "tttft=5ms": unknown key "tttft"`)
}

// TestCheckScenarios: a scenario the file names that no suite defines is
// an error at its line, listing those that are.
func TestCheckScenarios(t *testing.T) {
	p := writeConfig(t, "endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  chat: {samples: 5}\n  chta: {samples: 5}\n")
	cfg, err := LoadFile(p)
	require.NoError(t, err)
	err = cfg.CheckScenarios([]string{"batch", "chat", "extraction", "summary"})
	require.Error(t, err)
	assert.Equal(t, p+":5: scenarios.chta: no such scenario (defined: batch, chat, extraction, summary)", err.Error())
	assert.NoError(t, cfg.CheckScenarios([]string{"chat", "chta"}))
}

// TestGenericScenarioHasObjectives: a scenario with neither a preset nor
// an entry in the file still has an error-rate objective.
func TestGenericScenarioHasObjectives(t *testing.T) {
	cfg := &Config{Scenarios: Presets()}
	o := cfg.Objectives("custom", "any")
	require.NotEmpty(t, o)
	assert.True(t, o.Has("error_rate"))
}

// TestLoadShapeKeys: rate alone makes an open-loop scenario, duration a
// soak, prompt_tokens a sweep crossed with the load levels.
func TestLoadShapeKeys(t *testing.T) {
	p := writeConfig(t, `
endpoints:
  a: {base_url: http://x/v1, model: m}
scenarios:
  chat:
    rate: [2, 5]
    arrival: gamma
    burstiness: 0.5
    max_concurrency: 8
    duration: 30m
    slice: 30s
    seed: 7
  summary:
    concurrency: 1
    prompt_tokens: [128, 1024]
    output_tokens: 64
`)
	cfg, err := LoadFile(p)
	require.NoError(t, err)
	chat := cfg.Scenario("chat", "a")
	assert.Empty(t, chat.Concurrency, "rate: alone replaces the preset's closed-loop levels")
	var labels []string
	for _, lv := range chat.Levels() {
		labels = append(labels, string(lv.Label()))
		o := lv.Pacer.(load.Open)
		assert.Equal(t, load.Open{Rate: o.Rate, Arrival: load.Gamma, Burstiness: 0.5, MaxConcurrency: 8, Seed: 7}, o)
	}
	assert.Equal(t, []string{"rate=2", "rate=5"}, labels)
	assert.Equal(t, 30*time.Minute, chat.Duration)
	assert.Equal(t, 30*time.Second, chat.SliceLength())
	assert.Equal(t, 3600, chat.Requests(chat.Levels()[0]), "2 req/s for 30 minutes")

	sum := cfg.Scenario("summary", "a")
	labels = nil
	for _, lv := range sum.Levels() {
		labels = append(labels, string(lv.Label()))
	}
	assert.Equal(t, []string{"prompt_tokens=128/concurrency=1", "prompt_tokens=1024/concurrency=1"}, labels)
	assert.Equal(t, 64, sum.MaxTokens)
}

// TestGateAlphaPerFamily: gate.alpha is one level, or one per family.
func TestGateAlphaPerFamily(t *testing.T) {
	p := writeConfig(t, "endpoints:\n  a: {base_url: http://x/v1, model: m}\ngate:\n  alpha: {latency: 0.01, quality: 0.001}\n")
	cfg, err := LoadFile(p)
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"latency": 0.01, "quality": 0.001}, cfg.Gate.FamilyAlpha)
	assert.Zero(t, cfg.Gate.Alpha)
	p = writeConfig(t, "endpoints:\n  a: {base_url: http://x/v1, model: m}\ngate:\n  alpha: {speed: 0.01}\n")
	_, err = LoadFile(p)
	assert.ErrorContains(t, err, ":4: gate.alpha.speed: unknown key (allowed: latency, quality, runs)")
}

// TestCachePolicy: the presets bust the cache, a scenario named in no
// preset is natural, and cache:/prefix_tokens: are read per scenario and
// per endpoint.
func TestCachePolicy(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sla.yaml")
	require.NoError(t, os.WriteFile(p, []byte(`endpoints:
  a: {base_url: http://x/v1, model: m}
  b: {base_url: http://y/v1, model: m}
scenarios:
  chat:
    cache: warm
    prefix_tokens: 256
    endpoints:
      b: {cache: natural}
  mine:
    samples: 3
`), 0o644))
	cfg, err := LoadFile(p)
	require.NoError(t, err)
	assert.Equal(t, sample.CacheWarm, cfg.Scenario("chat", "a").Cache)
	assert.Equal(t, 256, cfg.Scenario("chat", "a").WarmPrefix())
	assert.Equal(t, sample.CacheNatural, cfg.Scenario("chat", "b").Cache)
	assert.Equal(t, sample.CacheBust, cfg.Scenario("summary", "a").Cache, "a preset busts the cache")
	assert.Equal(t, sample.CachePolicy(""), cfg.Scenario("mine", "a").Cache, "a scenario of no preset sends as the fixture asks")
	assert.Equal(t, DefaultPrefixTokens, cfg.Scenario("mine", "a").WarmPrefix())
}
