package config

import (
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerKeys: server_metrics, server_pid and exclusive are read per
// endpoint; exclusive makes foreign_max 0 unless a scenario sets it.
func TestServerKeys(t *testing.T) {
	cfg, err := LoadFile(writeConfig(t, `endpoints:
  prod:
    base_url: http://gpu1:8000/v1
    model: m
    server_metrics: {url: http://gpu1:8000/metrics, every: 500ms}
    exclusive: true
  local:
    base_url: http://127.0.0.1:11434/v1
    model: m
    kind: ollama
    server_pid: 4242
    server_metrics: off
  other: {base_url: http://x/v1, model: m}
scenarios:
  chat: {sla: {ttft_p95_ms: 600}}
  summary:
    sla: {foreign_max: 0.1}
`))
	require.NoError(t, err)
	assert.Equal(t, server.Config{URL: "http://gpu1:8000/metrics", Every: 500 * time.Millisecond, Exclusive: true}, cfg.Servers["prod"])
	assert.Equal(t, server.Config{Off: true, PID: 4242}, cfg.Servers["local"])
	assert.Equal(t, server.Config{}, cfg.Servers["other"], "unset: the defaults")
	assert.True(t, cfg.Objectives("chat", "prod").Has("foreign"), "exclusive: foreign_max 0")
	assert.False(t, cfg.Objectives("chat", "other").Has("foreign"))
	for _, th := range cfg.Objectives("summary", "prod") {
		if th.Name == "foreign" {
			assert.Equal(t, 0.1, th.Value, "the scenario's own foreign_max stands")
		}
	}
}

// TestServerKeyErrors: each mistake names the file, line and key.
func TestServerKeyErrors(t *testing.T) {
	ep := "endpoints:\n  a:\n    base_url: http://x/v1\n    model: m\n"
	cases := map[string]struct{ yaml, want string }{
		"scalar":      {ep + "    server_metrics: on\n", `:5: endpoints.a.server_metrics: "on": want off, or a mapping {url: http://host:8000/metrics, every: 1s}`},
		"unknown key": {ep + "    server_metrics: {uri: http://x/metrics}\n", ":5: endpoints.a.server_metrics.uri: unknown key (allowed: url, every)"},
		"bad url":     {ep + "    server_metrics: {url: gpu1:8000/metrics}\n", ":5: endpoints.a.server_metrics.url:"},
		"every":       {ep + "    server_metrics: {every: 2h}\n", ":5: endpoints.a.server_metrics.every: 2h: want a duration from 10ms to 1h (e.g. 1s)"},
		"every zero":  {ep + "    server_metrics: {every: 0s}\n", "want a duration from 10ms to 1h"},
		"pid":         {ep + "    server_pid: 0\n", `:5: endpoints.a.server_pid: "0" is not a whole number from 1 to`},
		"exclusive":   {ep + "    exclusive: maybe\n", `:5: endpoints.a.exclusive: "maybe": want true or false`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := LoadFile(writeConfig(t, tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
