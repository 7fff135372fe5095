package server

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// goodLine is a reading as a session writes it, which each case below
// breaks in one key.
const goodLine = `{"source":"metrics","scenario":"chat","endpoint":"prod","level":"concurrency=4","run":"9cc509ef.3","phase":"during","t":"2026-11-30T15:14:55.1Z","took_ns":1200000,"bytes":5120,"families":12,"series_seen":40,"series":[{"name":"vllm:num_requests_waiting","labels":"engine=\"0\"","type":"gauge","value":3},{"name":"vllm:request_success_total","labels":"finished_reason=\"stop\"","type":"counter","value":7},{"name":"vllm:time_to_first_token_seconds","type":"histogram","le":[0.1,0.5],"counts":[1,3,4],"sum":0.9}]}`

// TestReadRefusesImpossibleReadings: a line no scrape can have given is an
// error at file:line naming the key and what is allowed.
func TestReadRefusesImpossibleReadings(t *testing.T) {
	cases := map[string]struct{ old, new, want string }{
		"source":           {`"source":"metrics"`, `"source":"dcgm"`, `source: "dcgm" (allowed: metrics, ollama, process)`},
		"phase":            {`"phase":"during"`, `"phase":"later"`, `phase: "later" (allowed: before, during, after)`},
		"endpoint escape":  {`"endpoint":"prod"`, `"endpoint":"\u001b[2J"`, `endpoint: "\x1b[2J" holds a control character`},
		"no run":           {`"run":"9cc509ef.3",`, ``, "not a reading: every reading has scenario, endpoint and run"},
		"year one":         {`"t":"2026-11-30T15:14:55.1Z"`, `"t":"0001-01-01T00:00:00Z"`, "not when and how long a reading took"},
		"negative took":    {`"took_ns":1200000`, `"took_ns":-1`, "not when and how long a reading took"},
		"negative counter": {`"type":"counter","value":7`, `"type":"counter","value":-7`, "a counter's increase of -7 (allowed: ≥ 0)"},
		"falling buckets":  {`"counts":[1,3,4]`, `"counts":[3,1,4]`, "cumulative counts [3 1 4]: negative or falling"},
		"bounds":           {`"le":[0.1,0.5]`, `"le":[0.5,0.1]`, "le 0.1 after 0.5: the bounds must rise"},
		"counts":           {`"counts":[1,3,4]`, `"counts":[1,3]`, "2 counts for 2 bounds"},
		"metric name":      {`"name":"vllm:num_requests_waiting"`, `"name":"a b\nc"`, "not a metric name"},
		"type":             {`"type":"gauge"`, `"type":"summary"`, `type "summary" (allowed: gauge, counter, histogram, untyped)`},
		"failed, series":   {`"took_ns":1200000,`, `"took_ns":1200000,"error":"HTTP 500",`, "a failed reading (HTTP 500) with series"},
		"labels":           {`"labels":"engine=\"0\""`, `"labels":"x\u001b"`, "labels: longer than 4096 bytes or holding a control character"},
	}
	dir := t.TempDir()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			require.Contains(t, goodLine, tc.old)
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".server.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(goodLine+"\n"+strings.Replace(goodLine, tc.old, tc.new, 1)+"\n"), 0o644))
			_, err := Read(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+":2: ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	p := filepath.Join(dir, "good.server.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(goodLine+"\n"), 0o644))
	rds, err := Read(p)
	require.NoError(t, err)
	require.Len(t, rds, 1)
	assert.Len(t, rds[0].Series, 3)
}

// TestReadCutAndLong: a last line without its end is a file cut short
// (its readings before it returned); a line over MaxLine is refused
// without being read whole.
func TestReadCutAndLong(t *testing.T) {
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.server.jsonl")
	require.NoError(t, os.WriteFile(cut, []byte(goodLine+"\n"+goodLine[:40]), 0o644))
	rds, err := Read(cut)
	assert.True(t, errors.Is(err, sample.ErrCut), "%v", err)
	assert.Len(t, rds, 1)
	_, cuts, err := ReadBeside([]string{filepath.Join(dir, "cut.samples.jsonl")}, true)
	require.NoError(t, err)
	assert.Len(t, cuts, 1)
	_, _, err = ReadBeside([]string{filepath.Join(dir, "cut.samples.jsonl")}, false)
	assert.ErrorContains(t, err, "judge what finished with -partial")

	long := filepath.Join(dir, "long.server.jsonl")
	require.NoError(t, os.WriteFile(long, []byte(strings.Repeat("x", MaxLine+10)+"\n"), 0o644))
	_, err = Read(long)
	assert.ErrorContains(t, err, "a line longer than 1 MiB: not a reading llmsla wrote")

	none, _, err := ReadBeside([]string{filepath.Join(dir, "absent.samples.jsonl")}, false)
	require.NoError(t, err)
	assert.Empty(t, none, "a run without a server file has no readings")
}

// TestFileWritesWhatReadReads: readings written by File read back equal.
func TestFileWritesWhatReadReads(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.server.jsonl")
	f, err := Create(p, func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "sk-secret", "[redacted]")) })
	require.NoError(t, err)
	rd := metricsReading(During, 1, gauge("vllm:num_requests_waiting", 2), counter("vllm:request_success_total", 4))
	rd.Err, rd.Series = "HTTP 401: sk-secret", nil
	f.Write(rd)
	f.Write(metricsReading(After, 2, gauge("vllm:num_requests_waiting", 0)))
	require.NoError(t, f.Close())
	rds, err := Read(p)
	require.NoError(t, err)
	require.Len(t, rds, 2)
	assert.Equal(t, "HTTP 401: [redacted]", rds[0].Err, "the filter redacts")
	assert.Equal(t, After, rds[1].Phase)
	assert.Equal(t, "run.server.jsonl", filepath.Base(FileName(filepath.Join(filepath.Dir(p), "run.samples.jsonl"))))
}
