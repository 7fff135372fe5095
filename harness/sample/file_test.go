package sample_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestReadCutFile: a file whose last line has no end was cut short: that
// is an error wrapping ErrCut, returned with the samples before the cut for
// a caller that takes partial data — and so is a whole last line without
// its newline, which may be the cut. ReadAll refuses it unless partial.
func TestReadCutFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.samples.jsonl")
	good := `{"scenario":"chat","endpoint":"e","seq":0,"t0":"2026-01-01T00:00:00Z","offset_ns":0,"ttft_ns":2,"ttfa_ns":2,"total_ns":5,"output_tokens":1,"chunks":1,"finish":"stop","reused":false}`
	second := strings.Replace(good, `"seq":0`, `"seq":1`, 1)
	for name, body := range map[string]string{"half a line": good + "\n" + second + "\n" + good[:40], "no last newline": good + "\n" + second + "\n" + good} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
			s, err := sample.Read(p)
			assert.ErrorIs(t, err, sample.ErrCut)
			assert.ErrorContains(t, err, p+":3:")
			assert.Len(t, s, 2)
			_, _, err = sample.ReadAll([]string{p}, false)
			assert.ErrorIs(t, err, sample.ErrCut)
			s, cut, err := sample.ReadAll([]string{p}, true)
			require.NoError(t, err)
			assert.Len(t, s, 2)
			assert.Len(t, cut, 1)
		})
	}

	require.NoError(t, os.WriteFile(p, []byte(good+"\n{oops\n"+good+"\n"), 0o644))
	_, err := sample.Read(p)
	assert.ErrorContains(t, err, p+":2:")
}

// TestReadMigratesGaps: a file written before the ITL histogram, with every
// gap in gaps_ns, reads as the histogram of those gaps.
func TestReadMigratesGaps(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.jsonl")
	old := `{"scenario":"chat","endpoint":"e","concurrency":2,"seq":0,"t0":"2026-01-01T00:00:00Z","offset_ns":0,"ttft_ns":10000000,"ttfa_ns":10000000,"total_ns":50000000,"output_tokens":4,"chunks":4,"gaps_ns":[1000000,2000000,3000000],"finish":"stop","reused":false}`
	require.NoError(t, os.WriteFile(p, []byte(old+"\n"), 0o644))
	s, err := sample.Read(p)
	require.NoError(t, err)
	require.Len(t, s, 1)
	require.NotNil(t, s[0].ITL)
	assert.EqualValues(t, 3, s[0].ITL.N)
	assert.Equal(t, 6*time.Millisecond, s[0].ITL.Sum)
	assert.Equal(t, time.Millisecond, s[0].ITL.Min)
	assert.Equal(t, 3*time.Millisecond, s[0].ITL.Max)
	assert.Equal(t, sample.Level("concurrency=2"), s[0].Level)

	// Written again, it has the new field only.
	f, err := sample.Create(p+".new", nil)
	require.NoError(t, err)
	f.Write(&s[0])
	require.NoError(t, f.Close())
	b, _ := os.ReadFile(p + ".new")
	assert.NotContains(t, string(b), "gaps_ns")
	assert.Contains(t, string(b), `"itl":{"n":3,`)
}

// TestFileKeepsItsFirstError: a samples file that cannot be written says
// so (Err, Close) instead of dropping samples quietly.
func TestFileKeepsItsFirstError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full to fail writes on")
	}
	f, err := sample.Create("/dev/full", nil)
	require.NoError(t, err)
	require.NoError(t, f.Err())
	f.Write(&sample.Sample{Scenario: "chat", Endpoint: "sim", Run: "r", Seq: 1, Start: time.Now()})
	assert.ErrorContains(t, f.Err(), "writing samples file /dev/full")
	assert.Error(t, f.Close())
}

// TestFileRefusesWhatItCannotRead: what llmsla writes, llmsla reads — a
// sample the reader would refuse (here a tool-call name holding a control
// character, as a hostile server may send) is not written; the file's
// error names the request and the reader's reason, and nothing after it
// is written either, so the record is never one the verdict refuses.
func TestFileRefusesWhatItCannotRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.samples.jsonl")
	f, err := sample.Create(p, nil)
	require.NoError(t, err)
	ok := sample.Sample{Scenario: "chat", Endpoint: "sim", Run: "r", Seq: 1, Start: time.Now(), Total: time.Millisecond}
	f.Write(&ok)
	bad := ok
	bad.Seq = 2
	bad.ToolCalls = []sample.ToolCall{{Name: "get\x1b[2Jweather"}}
	f.Write(&bad)
	f.Write(&ok)
	require.ErrorContains(t, f.Err(), "request 2 of run r (chat) would not read back")
	assert.ErrorContains(t, f.Err(), "tool_calls[0].name")
	require.Error(t, f.Close())
	got, err := sample.Read(p)
	require.NoError(t, err, "what was written reads back")
	assert.Len(t, got, 1, "nothing after the refused sample is written")
}

// TestCheckShards: a run of N shards needs every one of them, each from one
// process: a shard missing, or one that came twice (a re-run mixed in), is
// an error naming it.
func TestCheckShards(t *testing.T) {
	s := func(shard, run string) sample.Sample { return sample.Sample{Shard: shard, Run: run} }
	assert.NoError(t, sample.CheckShards([]sample.Sample{s("0/2", "a.1"), s("0/2", "a.2"), s("1/2", "b.1")}))
	assert.ErrorContains(t, sample.CheckShards([]sample.Sample{s("0/2", "a.1")}), "shard 1/2 missing")
	assert.ErrorContains(t, sample.CheckShards([]sample.Sample{s("0/2", "a.1"), s("0/2", "c.1"), s("1/2", "b.1")}), "shard 0/2 comes from 2 processes")
	for _, bad := range []string{"7/2", "2/2", "-1/2", "0/0", "x/2"} {
		err := sample.CheckShards([]sample.Sample{s("0/2", "a.1"), s("1/2", "b.1"), s(bad, "c.1")})
		assert.ErrorContains(t, err, fmt.Sprintf("shard %q is not a shard: want I/N with 0 ≤ I < N", bad))
	}
}

// TestReadRejectsEmptySamples: a line that is JSON but not a sample (null,
// {}, one without its scenario, endpoint or t0) is an error at file:line,
// not a zero sample counted as a success that took no time.
func TestReadRejectsEmptySamples(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.samples.jsonl")
	good := `{"scenario":"chat","endpoint":"e","seq":0,"t0":"2026-01-01T00:00:00Z","offset_ns":0,"ttft_ns":2,"ttfa_ns":2,"total_ns":5,"output_tokens":1,"chunks":1,"finish":"stop","reused":false}`
	for bad, want := range map[string]string{
		"null":                                   "no scenario, endpoint, t0",
		"{}":                                     "no scenario, endpoint, t0",
		strings.Replace(good, `"chat"`, `""`, 1): "no scenario (",
		strings.Replace(good, `"endpoint":"e",`, ``, 1):              "no endpoint (",
		strings.Replace(good, `"t0":"2026-01-01T00:00:00Z",`, ``, 1): "no t0 (",
	} {
		require.NoError(t, os.WriteFile(p, []byte(good+"\n"+bad+"\n"), 0o644))
		_, err := sample.Read(p)
		assert.ErrorContains(t, err, p+":2: not a sample: "+want, bad)
	}
	require.NoError(t, os.WriteFile(p, []byte(good+"\n"), 0o644))
	_, err := sample.Read(p)
	assert.NoError(t, err)
}
