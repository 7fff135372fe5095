package config

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestRecord: a configuration read from a file records the file (its
// absolute path outside the module, relative to the module root inside
// it) and the sha256 of its bytes, which an edit changes; one from the
// environment records where it came from.
func TestRecord(t *testing.T) {
	text := "endpoints:\n  sim: {sim: \"\"}\n"
	p := filepath.Join(t.TempDir(), "sla.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	cfg, err := LoadFile(p)
	require.NoError(t, err)
	got := sample.Provenance{}
	cfg.Record(got)
	sum := sha256.Sum256([]byte(text))
	assert.Equal(t, sample.Provenance{KeyFile: p, KeyDigest: "sha256:" + hex.EncodeToString(sum[:])}, got)

	require.NoError(t, os.WriteFile(p, []byte(text+"budget: {max_requests: 9}\n"), 0o644))
	edited, err := LoadFile(p)
	require.NoError(t, err)
	_, d := edited.File()
	assert.NotEqual(t, got[KeyDigest], d, "an edited file")

	root, err := ModuleRoot()
	require.NoError(t, err)
	in, err := LoadFile(filepath.Join(root, "examples", "sla.shards.yaml"))
	require.NoError(t, err)
	got = sample.Provenance{}
	in.Record(got)
	assert.Equal(t, filepath.Join("examples", "sla.shards.yaml"), got[KeyFile], "inside the module: relative to its root")

	got = sample.Provenance{}
	(&Config{Source: "built-in simulator"}).Record(got)
	assert.Equal(t, sample.Provenance{KeySource: "built-in simulator"}, got)
}
