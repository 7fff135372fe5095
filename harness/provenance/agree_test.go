package provenance

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// TestAgree: a run's results file and samples file agree when every key
// of the samples' record is in the header with its value; the header's
// own lines (go test's, the test binary's host) do not count, but a
// defining key only the header has does — as a digest added to the .txt
// alone, or the record's removed from it — and so does a value edited on
// one side. Without a record (or a header) nothing is compared.
func TestAgree(t *testing.T) {
	record := provBase()
	delete(record, "date")
	delete(record, "endpoint.sim.host")
	header := func(edit func(sample.Provenance)) sample.Provenance {
		h := maps.Clone(record)
		h["commit"], h["goos"], h["endpoint.sim.host"], h["model"] = "abc", "linux", "built-in simulator", "sim"
		if edit != nil {
			edit(h)
		}
		return h
	}
	require.NoError(t, Agree("NEW", "n.txt", "n.samples.jsonl", header(nil), record))
	assert.NoError(t, Agree("NEW", "n.txt", "n.samples.jsonl", header(nil), nil), "a run recorded before the record")
	cases := map[string]struct {
		edit func(sample.Provenance)
		want string
	}{
		"a value edited in the .txt": {func(h sample.Provenance) { h["endpoint.sim.model.digest"] = "/models/b" },
			"endpoint.sim.model.digest: /models/b in n.txt, /models/a in n.samples.jsonl"},
		"a key removed from the .txt": {func(h sample.Provenance) { delete(h, "scenario.chat.fixture.sha256") },
			"scenario.chat.fixture.sha256: unknown in n.txt, sha256:aa in n.samples.jsonl"},
		"a defining key added to the .txt": {func(h sample.Provenance) { h["endpoint.sim.model.quantization"] = "Q4" },
			"endpoint.sim.model.quantization: Q4 in n.txt, unknown in n.samples.jsonl"},
		"a describing key edited": {func(h sample.Provenance) { h["client.cpu"] = "other" },
			"client.cpu: other in n.txt, AMD EPYC in n.samples.jsonl"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := Agree("NEW", "n.txt", "n.samples.jsonl", header(tc.edit), record)
			require.ErrorIs(t, err, recording.ErrUnusable)
			assert.ErrorContains(t, err, "NEW: n.txt and n.samples.jsonl disagree")
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
