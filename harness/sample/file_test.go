package sample_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

func TestReadSamplesSurvivesACutLastLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	good := `{"scenario":"chat","endpoint":"e","seq":0,"t0":"2026-01-01T00:00:00Z","offset_ns":0,"total_ns":5,"output_tokens":1,"chunks":1,"finish":"stop","reused":false}`
	require.NoError(t, os.WriteFile(p, []byte(good+"\n"+good+"\n"+good[:40]), 0o644))
	s, err := sample.Read(p)
	require.NoError(t, err)
	assert.Len(t, s, 2)

	require.NoError(t, os.WriteFile(p, []byte(good+"\n{oops\n"+good+"\n"), 0o644))
	_, err = sample.Read(p)
	assert.ErrorContains(t, err, p+":2:")
}
