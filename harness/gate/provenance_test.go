package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/provenance"
	"github.com/llmsla/llmsla/harness/recording"
)

// TestReportStartsWithChange: with -allow-change, the report's first
// line is what changed, and what drifted is listed under the verdict.
func TestReportStartsWithChange(t *testing.T) {
	rep := &Report{Base: "BASE", New: "NEW", Provenance: provenance.Check{
		Changed: []provenance.Change{{Key: "endpoint.sim.model.digest", Base: "/models/a", New: "/models/b", Kind: "model.digest"}},
		Drifted: []provenance.Change{{Key: "client.cpu", Base: "a", New: "b"}}}}
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	lines := strings.Split(b.String(), "\n")
	assert.Equal(t, "CHANGED (-allow-change model.digest) endpoint.sim.model.digest: /models/a → /models/b", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "gate PASS"), lines[1])
	assert.Contains(t, b.String(), "provenance: client.cpu: a → b (describes the client or drifts on its own: not refused)")
}

// TestGateHoldsEachSideToItsTwoRecords (issue 29, item 4): the committed
// baseline against a copy whose samples file records another model (its
// model.id) while its .txt still says the baseline's — the .txt edited
// alone, as a candidate would to pass — is exit 2 naming the side, the
// key and both values, -runs-only or not; the copy untouched is judged.
func TestGateHoldsEachSideToItsTwoRecords(t *testing.T) {
	const golden = "../../golden/baseline.txt"
	txt, err := os.ReadFile(golden)
	require.NoError(t, err)
	samples, err := os.ReadFile(recording.SamplesBeside(golden))
	require.NoError(t, err)
	const key = `"endpoint.sim.model.id":"sim"`
	require.Contains(t, string(samples), key)
	dir := t.TempDir()
	copyOf := func(name string, samples []byte) string {
		p := filepath.Join(dir, name+".txt")
		require.NoError(t, os.WriteFile(p, txt, 0o644))
		require.NoError(t, os.WriteFile(recording.SamplesBeside(p), samples, 0o644))
		return p
	}
	same := copyOf("same", samples)
	other := copyOf("other", []byte(strings.Replace(string(samples), key, `"endpoint.sim.model.id":"other-model"`, 1)))
	opts := Options{AllowBlind: []string{"*"}}
	_, err = Gate(recording.File(golden), recording.File(same), opts)
	require.NoError(t, err, "a copy of a run agrees with itself")
	for _, runsOnly := range []bool{false, true} {
		opts.RunsOnly = runsOnly
		_, err = Gate(recording.File(golden), recording.File(other), opts)
		require.ErrorIs(t, err, recording.ErrUnusable, "-runs-only %v", runsOnly)
		for _, want := range []string{"NEW: " + other + " and " + recording.SamplesBeside(other) + " disagree",
			"endpoint.sim.model.id: sim in " + other + ", other-model in " + recording.SamplesBeside(other)} {
			assert.Contains(t, err.Error(), want)
		}
		_, err = Gate(recording.File(other), recording.File(golden), opts)
		assert.ErrorContains(t, err, "BASE: "+other)
	}
}
