package load

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardPacer: the shards' parts add up to the whole load, keep its
// level, and a load with fewer workers or in-flight slots than shards is
// refused rather than rounded up (three shards of max_concurrency 2 would
// put three requests in flight).
func TestShardPacer(t *testing.T) {
	const n = 3
	workers, inFlight, rate := 0, 0, 0.0
	for i := range n {
		sh := Shard{i, n}
		p, err := sh.Pacer(Closed(7))
		require.NoError(t, err)
		assert.Equal(t, Closed(7).Level(), p.Level())
		workers += p.Workers()

		p, err = sh.Pacer(Open{Rate: 30, MaxConcurrency: 5})
		require.NoError(t, err)
		o := p.(sharded).Pacer.(Open)
		inFlight += o.Workers()
		rate += o.Rate
	}
	assert.Equal(t, 7, workers)
	assert.Equal(t, 5, inFlight)
	assert.InDelta(t, 30, rate, 1e-9)

	for name, p := range map[string]Pacer{
		"concurrency":     Closed(2),
		"max_concurrency": Open{Rate: 30, MaxConcurrency: 2},
	} {
		_, err := Shard{0, n}.Pacer(p)
		if assert.Error(t, err, name) {
			assert.True(t, strings.Contains(err.Error(), name+" 2 cannot be split over 3 shards"), err.Error())
		}
	}
}
