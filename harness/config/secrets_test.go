package config

import (
	"slices"
	"testing"
)

// TestSecrets: the configuration names as secret the key of every
// endpoint, its header values and the values of its base URL's query.
func TestSecrets(t *testing.T) {
	t.Setenv("TEST_LLMSLA_KEY", "sk-from-env-0123")
	t.Setenv(EnvConfig, writeConfig(t, `
endpoints:
  prod:
    base_url: https://u:pass-word-99@api.example.com/v1?api-version=2024-10-21&key=q-secret%2B99
    model: m1
    api_key_env: TEST_LLMSLA_KEY
    headers: {X-Tenant-Token: hdr-secret-0123, X-Team: ml}
  local:
    sim: "ttft=10ms"
`))
	t.Setenv(EnvEndpoints, "")
	cfg, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Secrets()
	for _, want := range []string{"sk-from-env-0123", "hdr-secret-0123", "ml", "q-secret+99", "q-secret%2B99", "2024-10-21", "pass-word-99"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets() = %q lacks %q", got, want)
		}
	}
}
