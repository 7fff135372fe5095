package recording_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/recording"
)

// TestRetain: beyond -keep, the oldest runs go by their stamp whatever
// their kind (a capacity search's, a partial run's), each run's files
// together; latest.* and files llmsla did not name are kept.
func TestRetain(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i, stamp := range []string{"20261201T100000Z", "20261201T100100Z", "20261201T100200Z.shard0of2", "20261201T100300Z", "capacity-20261201T100400Z", "20261201T100500Z.partial"} {
		for _, ext := range []string{".txt", ".samples.jsonl", ".summary.json"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, stamp+ext), nil, 0o644))
			if i >= 4 {
				want = append(want, stamp+ext)
			}
		}
	}
	for _, keep := range []string{"latest.txt", "latest.samples.jsonl", "latest.summary.json", "baseline.txt", "notes.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, keep), nil, 0o644))
		want = append(want, keep)
	}
	require.NoError(t, recording.Retain(dir, 2))
	var got []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, want, got)
}

// TestPromoteAndPartial: Promote makes a run latest.* whole — the run's
// files copied, a latest file it has no counterpart of removed — and
// MarkPartial renames every file of a run that did not finish to
// X.partial.*, which no reader of whole runs takes for one.
func TestPromoteAndPartial(t *testing.T) {
	dir := t.TempDir()
	old := recording.Latest(dir)
	require.NoError(t, os.WriteFile(old.Server(), []byte("old"), 0o644))
	run := recording.NewRun(dir, recording.KindBench, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), 0, 0)
	assert.Equal(t, "20261201T100000Z", run.Name)
	for _, f := range []string{run.Txt(), run.Samples(), run.Summary()} {
		require.NoError(t, os.WriteFile(f, []byte(filepath.Base(f)), 0o644))
	}
	require.NoError(t, run.Promote())
	b, err := os.ReadFile(old.Txt())
	require.NoError(t, err)
	assert.Equal(t, "20261201T100000Z.txt", string(b))
	assert.NoFileExists(t, old.Server(), "the last run's server file is not this run's")

	p, err := run.MarkPartial()
	require.NoError(t, err)
	assert.Equal(t, "20261201T100000Z.partial", p.Name)
	assert.FileExists(t, p.Txt())
	assert.FileExists(t, p.Samples())
	assert.NoFileExists(t, run.Txt())
	assert.Error(t, recording.Run{Dir: dir, Name: "none"}.Promote(), "nothing to promote")

	shard := recording.NewRun(dir, recording.KindCapacity, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), 1, 3)
	assert.Equal(t, "capacity-20261201T100000Z.shard1of3", shard.Name)
	assert.Equal(t, "20261201T100000Z", shard.Stamp())
}
