package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVariablesInFlowStyle: ${VAR} means the same inside a flow mapping
// or sequence ({ttft_p95_ms: ${TTFT:-3000}}) as in block style, where
// YAML would read its braces as its own and refuse the file with no
// hint. A value from the environment is a value, never YAML: it cannot
// add keys. Keys stay as written, in errors too; a file that holds the
// placeholder llmsla hides variables behind reads as written.
func TestVariablesInFlowStyle(t *testing.T) {
	const sim = "endpoints:\n  sim: {sim: \"\"}\n"
	cases := map[string]struct {
		env        map[string]string
		yaml       string
		ttft       float64
		model, err string
	}{
		"flow mapping, default": {yaml: sim + "scenarios:\n  chat:\n    sla: {ttft_p95_ms: ${LLMSLA_TEST_TTFT:-3000}}\n", ttft: 3000},
		"flow mapping, set": {env: map[string]string{"LLMSLA_TEST_TTFT": "1500"},
			yaml: sim + "scenarios:\n  chat:\n    sla: {ttft_p95_ms: ${LLMSLA_TEST_TTFT:-3000}}\n", ttft: 1500},
		"nested flow mappings": {yaml: sim + "scenarios: {chat: {sla: {ttft_p95_ms: ${LLMSLA_TEST_TTFT:-2500}, total_p95_ms: ${LLMSLA_TEST_TOTAL:-9000}}}}\n", ttft: 2500},
		"flow mapping, unset": {yaml: sim + "scenarios:\n  chat:\n    sla: {ttft_p95_ms: ${LLMSLA_TEST_TTFT}}\n",
			err: "sla.yaml:5: scenarios.chat.sla.ttft_p95_ms: ${LLMSLA_TEST_TTFT} is not set"},
		"an endpoint in flow style": {env: map[string]string{"LLMSLA_TEST_MODEL": "llama3"},
			yaml: "endpoints:\n  prod: {base_url: \"http://h/v1\", model: ${LLMSLA_TEST_MODEL}}\n", model: "llama3"},
		"a value that looks like YAML": {env: map[string]string{"LLMSLA_TEST_MODEL": "m, sim: x}, evil: {"},
			yaml: "endpoints:\n  prod: {base_url: \"http://h/v1\", model: ${LLMSLA_TEST_MODEL}}\n", model: "m, sim: x}, evil: {"},
		"a key as written": {yaml: sim + "scenarios:\n  chat:\n    sla: {${LLMSLA_TEST_KEY}: 5}\n",
			err: "sla.yaml:5: scenarios.chat.sla.${LLMSLA_TEST_KEY}: unknown metric"},
		"a default with a colon in block style": {yaml: "endpoints:\n  prod:\n    base_url: ${LLMSLA_TEST_BASE:-http://h:8000/v1}\n    model: m\n", model: "m"},
		"the placeholder written in the file, block style": {yaml: "endpoints:\n  prod:\n    base_url: ${LLMSLA_TEST_BASE:-http://h/v1}\n    model: __llmsla_var_0__\n",
			model: "__llmsla_var_0__"},
		"the placeholder written in the file, flow style": {yaml: "endpoints:\n  prod: {base_url: ${LLMSLA_TEST_BASE:-http://h/v1}, model: __llmsla_var_0__}\n",
			err: "quote the value it is in"},
		"a default with braces": {yaml: sim + "scenarios:\n  chat:\n    sla: {ttft_p95_ms: ${LLMSLA_TEST_TTFT:-{3000}}}\n",
			err: `if a ${VAR} is the cause, quote the value it is in ("${VAR:-default}")`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg, err := LoadFile(writeConfig(t, tc.yaml))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				if !strings.Contains(tc.yaml, "__llmsla_var_") {
					assert.NotContains(t, err.Error(), "__llmsla_var_", "a placeholder shown")
				}
				return
			}
			require.NoError(t, err)
			if tc.ttft > 0 {
				assert.Equal(t, tc.ttft, bound(t, cfg.Scenario("chat", "sim").Objectives, "ttft_p95_ms"))
			}
			if tc.model != "" {
				require.Len(t, cfg.Endpoints, 1)
				assert.Equal(t, tc.model, cfg.Endpoints[0].Model)
			}
		})
	}
}
