package config

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJudgeBlock: judge: names an endpoint, which then judges and is not
// measured; its settings default sensibly and its key is read.
func TestJudgeBlock(t *testing.T) {
	t.Setenv("TEST_LLMSLA_JUDGE_KEY", "sk-judge-0123456789")
	p := writeConfig(t, `
endpoints:
  prod: {base_url: https://api.example.com/v1, model: m1}
  grader: {base_url: https://judge.example.com/v1, model: big, api_key_env: TEST_LLMSLA_JUDGE_KEY}
judge: {endpoint: grader, max_tokens: 128, judge_agreement_min: 0.6}
`)
	cfg, err := LoadFile(p)
	require.NoError(t, err)
	require.NoError(t, cfg.selectEndpoints(""))
	require.NotNil(t, cfg.Judge)
	assert.Equal(t, []string{"prod"}, cfg.EndpointNames(), "the judge is not measured")
	j := cfg.Judge
	assert.Equal(t, "grader", j.Endpoint.Name)
	assert.Equal(t, "sk-judge-0123456789", j.Endpoint.APIKey)
	assert.Equal(t, filepath.Join(filepath.Dir(p), DefaultJudgeCache), j.Cache)
	assert.Equal(t, 128, j.MaxTokens)
	assert.Equal(t, DefaultJudgeConcurrency, j.Concurrency)
	require.NotNil(t, j.AgreementMin)
	assert.Equal(t, 0.6, *j.AgreementMin)
	assert.Contains(t, cfg.Secrets(), "sk-judge-0123456789")

	self, err := LoadFile(writeConfig(t, `
endpoints:
  prod: {base_url: https://api.example.com/v1, model: m1}
judge: {endpoint: prod, allow_self: true, cache: off}
`))
	require.NoError(t, err)
	assert.Equal(t, []string{"prod"}, self.EndpointNames(), "allow_self measures the judge too")
	assert.Equal(t, "", self.Judge.Cache)
	assert.NoError(t, self.selectEndpoints("prod"), "allow_self: the judge may be selected")
}

// TestJudgeBlockRefuses: a judge endpoint that does not exist, that is the
// endpoint measured under another name, or that leaves nothing to measure,
// and bad settings, are file:line errors before any request.
func TestJudgeBlockRefuses(t *testing.T) {
	cases := map[string]struct{ yaml, want string }{
		"no such endpoint": {`endpoints:
  prod: {base_url: https://a.example/v1, model: m}
judge: {endpoint: grader}
`, `:3: judge.endpoint: no endpoint named "grader" (have: prod)`},
		"the endpoint measured": {`endpoints:
  prod: {base_url: https://a.example/v1, model: m}
  same: {base_url: https://a.example/v1, model: m}
judge:
  endpoint: same
`, `:5: judge.endpoint: same is the endpoint measured as prod (the same base_url and model)`},
		"the only endpoint": {`endpoints:
  prod: {base_url: https://a.example/v1, model: m}
judge: {endpoint: prod}
`, `:3: judge.endpoint: prod is the only endpoint`},
		"no endpoint named": {`endpoints:
  prod: {base_url: https://a.example/v1, model: m}
judge: {cache: off}
`, `:3: judge.endpoint: missing`},
		"an unknown key": {`endpoints:
  prod: {base_url: https://a.example/v1, model: m}
  g: {sim: ""}
judge: {endpoint: g, temperature: 0}
`, `:4: judge.temperature: unknown key (allowed: endpoint, allow_self, cache, concurrency, max_tokens, seed, judge_agreement_min)`},
		"a kappa beyond 1": {`endpoints:
  prod: {base_url: https://a.example/v1, model: m}
  g: {sim: ""}
judge: {endpoint: g, judge_agreement_min: 2}
`, `:4: judge.judge_agreement_min: 2 is not a kappa`},
		"a judge_pass_min with quality off": {`endpoints:
  prod: {base_url: https://a.example/v1, model: m}
scenarios:
  summary: {quality: "off", sla: {judge_pass_min: 0.8}}
`, `:4: scenarios.summary.sla.judge_pass_min: quality: off judges no answer`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			_, err := LoadFile(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+tc.want)
		})
	}
	cfg, err := LoadFile(writeConfig(t, `endpoints:
  prod: {base_url: https://a.example/v1, model: m}
  g: {sim: ""}
judge: {endpoint: g}
`))
	require.NoError(t, err)
	assert.ErrorContains(t, cfg.selectEndpoints("g"), `LLMSLA_ENDPOINTS: endpoint "g" is the judge`)
}
