package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrokenFixtureNamesFileAndLine: a bad case is reported as file:line
// (Run and Bench load the fixture before their first request).
func TestBrokenFixtureNamesFileAndLine(t *testing.T) {
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": ""}}
	s, err := NewSession(cfg)
	require.NoError(t, err)
	defer s.Close()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(
		`{"id":"a","prompt":"hi","expected":"x","match":{"type":"exact"},"answer":"x","wrong_answer":"y"}`+"\n"+
			`{"id":"b","prompt":"hi","expected":"x","match":{"type":"exactly"},"answer":"x","wrong_answer":"y"}`+"\n"), 0o644))
	_, err = s.source(Scenario{Name: "chat", Fixture: bad})
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+":2: match.type")
}

func TestGoldenNeedsDeterminism(t *testing.T) {
	zero := float32(0)
	assert.False(t, Scenario{Golden: "g"}.deterministic())
	assert.False(t, Scenario{Golden: "g", Temperature: &zero}.deterministic())
	assert.True(t, Scenario{Golden: "g", Temperature: &zero, Seed: new(int)}.deterministic())
}
