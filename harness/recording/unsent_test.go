package recording

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnsentRunsAreNoRuns: a level's repetitions left once it was decided
// (stop: decided) each print a result of UnitUnsent alone, as go test
// prints every repetition; a reader counts the runs that sent requests,
// which are the runs the samples hold, and a mark beside a figure is a
// corrupt line.
func TestUnsentRunsAreNoRuns(t *testing.T) {
	sent := "BenchmarkChat/endpoint=prod/concurrency=5-2\t20\t21.5 ttft-p95-ms\n"
	unsent := "BenchmarkChat/endpoint=prod/concurrency=5-2\t20\t1.000 " + UnitUnsent + "\n"
	file := header + strings.Repeat(sent, 4) + strings.Repeat(unsent, 6) + "PASS\n"
	n, err := read(t, file)
	require.NoError(t, err)
	assert.Equal(t, 4, n, "the 4 runs sent; the 6 unsent are not runs")

	_, err = read(t, header+sent+"BenchmarkChat/endpoint=prod/concurrency=5-2\t20\t1.000 "+UnitUnsent+"\t21.5 ttft-p95-ms\n")
	require.ErrorIs(t, err, ErrUnusable)
	assert.Contains(t, err.Error(), "holds ttft-p95-ms beside "+UnitUnsent)
}
