package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileConfigFile: an SLA file and its ${VAR}s as a careless user
// or a hostile environment make them — a value holding control
// characters or another ${…} (expanded once, never again), a BOM, CRLF,
// NUL, an alias bomb, a file of a gigabyte — are read as meant or
// refused naming file:line and key, with what the environment sent
// escaped.
func TestHostileConfigFile(t *testing.T) {
	bomb := "x: &a [y, y, y, y, y, y, y, y, y]\n"
	for i := 'b'; i <= 'j'; i++ {
		p := "*" + string(i-1)
		bomb = strings.Replace(bomb, "x: &"+string(i-1), "x"+string(i-1)+": &"+string(i-1), 1)
		bomb += "x" + string(i) + ": &" + string(i) + " [" + strings.Repeat(p+", ", 8) + p + "]\n"
	}
	ep := "endpoints:\n  prod: {base_url: \"http://h/v1\", model: ${LLMSLA_TEST_MODEL}}\n"
	cases := map[string]struct {
		env         map[string]string
		yaml, model string
		err         string
	}{
		"a value holding an escape": {env: map[string]string{"LLMSLA_TEST_MODEL": "m\x1b]0;pwned\x07"}, yaml: ep,
			err: `sla.yaml:2: endpoints.prod.model: "m\x1b]0;pwned\a" holds a control character`},
		"a value holding a newline": {env: map[string]string{"LLMSLA_TEST_MODEL": "m\nBenchmarkFake 1 1 ns/op"}, yaml: ep,
			err: `endpoints.prod.model: "m\nBenchmarkFake 1 1 ns/op" holds a control character`},
		"a value holding a ${…}, expanded once": {env: map[string]string{"LLMSLA_TEST_MODEL": "${LLMSLA_TEST_OTHER}", "LLMSLA_TEST_OTHER": "leaked"},
			yaml: ep, model: "${LLMSLA_TEST_OTHER}"},
		"a variable inside a variable": {env: map[string]string{"LLMSLA_TEST_INNER": "MODEL"},
			yaml: "endpoints:\n  prod: {base_url: \"http://h/v1\", model: \"${LLMSLA_TEST_${LLMSLA_TEST_INNER}}\"}\n", model: "${LLMSLA_TEST_MODEL}"},
		"a BOM":         {env: map[string]string{"LLMSLA_TEST_MODEL": "m"}, yaml: "\ufeff" + ep, model: "m"},
		"CRLF":          {env: map[string]string{"LLMSLA_TEST_MODEL": "m"}, yaml: strings.ReplaceAll(ep, "\n", "\r\n"), model: "m"},
		"NUL":           {yaml: "endpoints:\n  prod: {base_url: \"http://h/v1\", model: m\x00}\n", err: "sla.yaml"},
		"an alias bomb": {yaml: bomb, err: "sla.yaml"},
		"a tab indent":  {yaml: "endpoints:\n\tprod: {base_url: \"http://h/v1\", model: m}\n", err: "sla.yaml"},
		"a default of 1 MiB": {yaml: "endpoints:\n  prod: {base_url: \"http://h/v1\", model: ${LLMSLA_TEST_MODEL:-" + strings.Repeat("m", 1<<20) + "}}\n",
			err: "endpoints.prod.model"},
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
				assert.NotContains(t, err.Error(), "\x1b")
				assert.Less(t, len(err.Error()), 4096, "the error quotes what it refuses, cut")
				return
			}
			require.NoError(t, err)
			require.Len(t, cfg.Endpoints, 1)
			assert.Equal(t, tc.model, cfg.Endpoints[0].Model)
		})
	}
}

// TestConfigFileBounded: a path to a file far larger than any SLA file
// (a log, a dataset) is refused before it is read whole.
func TestConfigFileBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sla.yaml")
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30)) // sparse: a gigabyte of NULs
	require.NoError(t, f.Close())
	_, err = LoadFile(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sla.yaml: 1073741824 bytes (allowed: at most")
}
