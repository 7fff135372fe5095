package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/sim"
)

// noTools serves the simulator but refuses a request that offers tools
// as Ollama does a model whose chat template has none: HTTP 400.
func noTools(t *testing.T) string {
	t.Helper()
	cfg := sim.Default()
	cfg.TTFT, cfg.TPOT = 0, 0
	s := sim.New(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"tools"`) {
			http.Error(w, `{"error":{"message":"registry.ollama.ai/library/tiny:latest does not support tools","type":"api_error"}}`, http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestCapabilitiesBeforeTheRun: a model that does not call tools is found
// before the run. A shipped scenario it cannot serve that the SLA file
// does not name is not measured there, and said so under the table, the
// exit code unaffected; one the file names is exit 2 before any measured
// request. -dry-run says the same. (The default run used to stop at the
// tools scenario's probe, exit 2, and -dry-run passed.)
func TestCapabilitiesBeforeTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	t.Setenv("OPENAI_BASE_URL", noTools(t))
	t.Setenv("LLMSLA_MODEL", "sim")
	run := func(t *testing.T, args ...string) (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := runBench(append([]string{"-pkg", suites, "-bench", "Chat$|Tools", "-out", t.TempDir(), "-count", "1", "-n", "2", "-q"}, args...), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	const unserved = "tools endpoint=default: not measured (the endpoint does not call tools: "
	t.Run("not named: not measured, said", func(t *testing.T) {
		// The endpoint's simulator was told no answers: accuracy is not
		// what this test is about.
		useConfig(t, "scenarios:\n  chat: {sla: {accuracy_min: 0}}\n")
		code, got := run(t, "-dry-run")
		assert.Equal(t, exitOK, code, got)
		assert.Contains(t, got, unserved)
		assert.Contains(t, got, "dry run: nothing was measured (1 capability probe of one token")
		assert.NotContains(t, got, "tools        default", "the plan has no tools row on the endpoint")
		code, got = run(t)
		assert.Equal(t, exitOK, code, got)
		assert.Contains(t, got, unserved)
		assert.Contains(t, got, "All SLAs met.")
	})
	t.Run("named: exit 2 before the run", func(t *testing.T) {
		useConfig(t, "scenarios:\n  tools: {sla: {tool_valid_min: 0.9}}\n")
		for _, dry := range []string{"-dry-run", "-q"} {
			code, got := run(t, dry)
			assert.Equal(t, exitBroken, code, got)
			assert.Contains(t, got, "scenarios.tools: endpoint default does not call tools")
			assert.Contains(t, got, "fixtures/models/Modelfile.tools offers tools")
			assert.NotContains(t, got, "recorded ")
		}
	})
}
