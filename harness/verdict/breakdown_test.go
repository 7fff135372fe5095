package verdict

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBreakdowns: an Ollama endpoint's server figures, reported run by
// run, are each benchmark's medians over its runs, named as the verdict
// table names it; a benchmark without server figures has none.
func TestBreakdowns(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.txt")
	rec := "Unit load-ms better=lower\n" +
		"BenchmarkChat/endpoint=local/concurrency=1-2 20 0 ns/op 30 ttft-p50-ms 14 load-ms 2 prefill-ms 5 netq-ms 150 server-tok/s\n" +
		"BenchmarkChat/endpoint=local/concurrency=1-2 20 0 ns/op 31 ttft-p50-ms 16 load-ms 2 prefill-ms 7 netq-ms 160 server-tok/s\n" +
		"BenchmarkChat/endpoint=local/concurrency=1-2 20 0 ns/op 29 ttft-p50-ms 15 load-ms 3 prefill-ms 6 netq-ms 155 server-tok/s\n" +
		"BenchmarkBatch/endpoint=sim/concurrency=16-2 20 0 ns/op 30 ttft-p50-ms\n" +
		"BenchmarkSummary/endpoint=local/concurrency=1-2 20 0 ns/op 4 load-ms\n"
	require.NoError(t, os.WriteFile(p, []byte(rec), 0o644))
	got := Breakdowns(p)
	require.Len(t, got, 2)
	assert.Equal(t, "chat endpoint=local concurrency=1", got[0].Label)
	assert.Equal(t, 3, got[0].Runs)
	assert.Equal(t, map[string]float64{"load": 15, "prefill": 2, "netq": 6, "server_tok": 155}, got[0].Median)
	assert.Equal(t, "summary endpoint=local concurrency=1", got[1].Label)
	assert.True(t, math.IsNaN(got[1].Median["prefill"]), "a figure not reported is not a zero")
	assert.Nil(t, Breakdowns(filepath.Join(t.TempDir(), "none.txt")))
}
