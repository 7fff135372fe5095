package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
)

// TestGateShardsHoldsEachRunToItsTwoRecords (issue 29, item 4): a side
// judged on its pooled requests — a directory of shards' results, or a
// .txt read through its samples — is refused, naming the side, the key
// and both values, when a results file in it records another provenance
// than the samples file beside it; copies of one run are judged.
func TestGateShardsHoldsEachRunToItsTwoRecords(t *testing.T) {
	const golden = "../../golden/baseline.txt"
	txt, err := os.ReadFile(golden)
	require.NoError(t, err)
	samples, err := os.ReadFile(recording.SamplesBeside(golden))
	require.NoError(t, err)
	copyIn := func(samples []byte) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "run.txt"), txt, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "run.samples.jsonl"), samples, 0o644))
		return dir
	}
	const key = `"endpoint.sim.model.id":"sim"`
	require.Contains(t, string(samples), key)
	same, edited := copyIn(samples), copyIn([]byte(strings.Replace(string(samples), key, `"endpoint.sim.model.id":"other-model"`, 1)))
	opts := gate.Options{AllowBlind: []string{"*"}}
	_, err = GateShards(golden, same, opts)
	require.NoError(t, err)
	for _, sides := range [][2]string{{golden, edited}, {golden, filepath.Join(edited, "run.txt")}} {
		_, err = GateShards(sides[0], sides[1], opts)
		require.ErrorIs(t, err, recording.ErrUnusable)
		assert.ErrorContains(t, err, "NEW: "+filepath.Join(edited, "run.txt")+" and "+filepath.Join(edited, "run.samples.jsonl")+" disagree")
		assert.ErrorContains(t, err, "endpoint.sim.model.id: sim in ")
	}
	_, err = GateShards(edited, golden, opts)
	assert.ErrorContains(t, err, "BASE: ")
}
