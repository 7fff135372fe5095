package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFixedOutputTokens: output_tokens: N is a cap, {fixed: N} a fixed
// length, refused at file:line on an endpoint whose server cannot be asked
// for one, and allowed on vLLM, SGLang, llama.cpp and the simulator.
func TestFixedOutputTokens(t *testing.T) {
	clearEnv(t)
	cfg, err := LoadFile(writeConfig(t, "endpoints:\n  v: {base_url: \"http://h/v1\", model: m, kind: vllm}\n  s: {sim: \"\"}\n"+
		"scenarios:\n  chat: {output_tokens: {fixed: 128}}\n  summary: {output_tokens: 64}\n"))
	require.NoError(t, err)
	assert.Equal(t, 128, cfg.Scenario("chat", "v").FixedTokens)
	assert.Equal(t, 128, cfg.Scenario("chat", "v").MaxTokens)
	assert.Equal(t, 0, cfg.Scenario("summary", "v").FixedTokens)
	assert.Equal(t, 64, cfg.Scenario("summary", "v").MaxTokens)
	assert.Equal(t, "output_tokens=128/concurrency=1", string(cfg.Scenario("chat", "s").Levels()[0].Label()))

	_, err = LoadFile(writeConfig(t, "endpoints:\n  o: {base_url: \"https://api.openai.com/v1\", model: m}\n"+
		"scenarios:\n  chat: {output_tokens: {fixed: 128}}\n"))
	assert.ErrorContains(t, err, "sla.yaml:4: scenarios.chat.output_tokens.fixed: endpoint o is kind: openai, which cannot be asked for a fixed answer length (allowed: vllm, sglang, llamacpp")
	_, err = LoadFile(writeConfig(t, "endpoints:\n  s: {sim: \"\"}\nscenarios:\n  chat: {output_tokens: {fixd: 1}}\n"))
	assert.ErrorContains(t, err, "scenarios.chat.output_tokens.fixd: unknown key (allowed: fixed)")
}
