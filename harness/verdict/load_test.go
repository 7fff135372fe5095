package verdict

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// TestInfo: what a run was comes from the results file beside its
// samples (recording.ReadHeader: the commit, each endpoint's host), and
// without one the commit from the samples' own provenance.
func TestInfo(t *testing.T) {
	shell(t, "")
	cfg := &config.Config{Source: "test", Scenarios: config.Presets()}
	samples := recordRun(t, t.TempDir(), sample.Provenance{"client.go": "go1.26", "client.llmsla": "abc123"})
	r, err := Load(cfg, []string{samples}, Options{})
	require.NoError(t, err)
	info := r.Info(cfg)
	assert.Equal(t, "abc123", info.Commit, "a run stopped before its first benchmark line")
	assert.Equal(t, "test", info.Config)

	require.NoError(t, os.WriteFile(recording.TxtBeside(samples), []byte("commit: def456\nendpoint.fast.host: api.example.com\n"+
		"BenchmarkChat/endpoint=fast/concurrency=1-2\t20\t20 ttft-p50-ms\n"), 0o644))
	info = r.Info(cfg)
	assert.Equal(t, "def456", info.Commit)
	require.Len(t, info.Endpoints, 1)
	assert.Equal(t, "api.example.com", info.Endpoints[0].Host)
}
