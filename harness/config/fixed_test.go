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

// TestSweepSettings: a sweep: block reads its ends as measured (stream,
// max) or rates, and refuses what cannot be swept, at file:line.
func TestSweepSettings(t *testing.T) {
	clearEnv(t)
	cfg, err := LoadFile(writeConfig(t, "endpoints:\n  s: {sim: \"\"}\nscenarios:\n  chat: {sweep: {from: stream, to: max, steps: 6}}\n  summary: {sweep: {from: 2, to: 40}}\n"))
	require.NoError(t, err)
	assert.Equal(t, Sweep{Steps: 6, Saturate: 64}, *cfg.Scenario("chat", "s").Sweep)
	assert.Equal(t, Sweep{From: 2, To: 40, Steps: 8, Saturate: 64}, *cfg.Scenario("summary", "s").Sweep)
	assert.Equal(t, 8*20, cfg.Scenario("chat", "s").Sweep.Requests(20), "6 steps and the two measured ends")
	for yaml, want := range map[string]string{
		"{sweep: {to: fast}}":        `scenarios.chat.sweep.to: "fast": want max (measured) or a rate`,
		"{sweep: {from: 10, to: 5}}": "scenarios.chat.sweep: to 5 is below from 10",
		"{sweep: {steps: 0}}":        `scenarios.chat.sweep.steps: "0" is not a whole number from 1 to 100`,
		"{sweep: {stride: 2}}":       "scenarios.chat.sweep.stride: unknown key (allowed: from, to, steps, saturate)",
	} {
		_, err := LoadFile(writeConfig(t, "endpoints:\n  s: {sim: \"\"}\nscenarios:\n  chat: "+yaml+"\n"))
		assert.ErrorContains(t, err, want)
	}
}
