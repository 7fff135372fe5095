package load_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/trace"
)

// everyPacer is one pacer of each registered kind, capped and seeded where
// it takes arrivals. TestEveryKindListed fails until a new kind is listed
// here, and from then on every contract below holds it.
var everyPacer = map[string]load.Pacer{
	"concurrency": load.Closed(6),
	"rate":        load.Open{Rate: 30, Arrival: load.Gamma, Burstiness: 0.5, MaxConcurrency: 6, Seed: 3},
	"ramp": load.Ramp{From: 3, To: 30, Over: 20 * time.Second, Shape: load.Exponential,
		Arrivals: load.Arrivals{Arrival: load.Poisson, MaxConcurrency: 6, Seed: 4}},
	"sessions":     load.Sessions(6),
	"session_rate": load.SessionRate{Rate: 3, Arrivals: load.Arrivals{Arrival: load.Poisson, MaxConcurrency: 6, Seed: 5}},
	"trace":        evenReplay(),
}

// evenReplay is a trace of 300 rows 100 ms apart, replayed twice as fast.
func evenReplay() load.Pacer {
	t, err := load.NewTrace(trace.Spec{File: "testdata/even.mooncake.jsonl", Format: trace.Mooncake}, 2)
	if err != nil {
		panic(err)
	}
	return t.WithArrivals(load.Arrivals{MaxConcurrency: 6, Seed: 5})
}

// scheduled is an open loop whose schedule a test can read.
type scheduled interface {
	load.OpenLoop
	Schedule(n int) []time.Duration
}

// TestEveryKindListed: the registry and everyPacer name the same kinds,
// and a kind's levels are labelled with its key.
func TestEveryKindListed(t *testing.T) {
	var keys []string
	for _, k := range load.Kinds() {
		keys = append(keys, k.Key)
		got, ok := load.KindOf(k.Key)
		assert.True(t, ok && got.Key == k.Key, "KindOf(%q)", k.Key)
	}
	assert.ElementsMatch(t, keys, slices.Collect(maps.Keys(everyPacer)), "list every registered kind in everyPacer")
	assert.Equal(t, []string{"concurrency", "rate"}, keys[:2], "closed and open loops run first, as before the registry")
	for key, p := range everyPacer {
		assert.Equal(t, key, p.Level().Labels()[0].Key, "%T: a kind's levels are labelled with its key", p)
	}
}

// TestRegisterRefusesDuplicates: a second kind under a key, or one that
// cannot build levels, stops the program when it starts.
func TestRegisterRefusesDuplicates(t *testing.T) {
	rate, _ := load.KindOf("rate")
	assert.PanicsWithValue(t, "load.Register: kind rate registered twice", func() { load.Register(rate) })
	assert.Panics(t, func() { load.Register(load.Kind{Key: "burst"}) })
	_, ok := load.KindOf("burst")
	assert.False(t, ok)
}

// TestPacersSplit: over three shards every pacer's parts add up to the
// whole — workers, requests in a duration — keep its level and length,
// take as long as the whole to send their share, and are not split again.
func TestPacersSplit(t *testing.T) {
	const shards, d = 3, 10 * time.Second
	for key, p := range everyPacer {
		t.Run(key, func(t *testing.T) {
			whole, timed := p.Requests(d)
			wholeTime, _ := p.Duration(whole)
			workers, requests := 0, 0
			for i := range shards {
				part, err := load.Shard{I: i, N: shards}.Pacer(p)
				require.NoError(t, err)
				assert.Equal(t, p.Level(), part.Level(), "a shard's samples are labelled with the whole load")
				assert.Equal(t, p.Length(), part.Length())
				workers += part.Workers()
				n, ok := part.Requests(d)
				assert.Equal(t, timed, ok)
				requests += n
				if partTime, ok := part.Duration(whole / shards); ok {
					assert.InEpsilon(t, wholeTime.Seconds(), partTime.Seconds(), 0.02, "a shard sends its share in the whole's time")
				}
				_, err = load.Shard{I: 0, N: 2}.Pacer(part)
				assert.ErrorContains(t, err, "already a shard's part")
			}
			assert.Equal(t, p.Workers(), workers, "the shards' workers add up to the whole's")
			if timed {
				assert.InDelta(t, whole, requests, shards, "each shard rounds its count up, at most one more")
			}
		})
	}
}

// TestPacersPlan: a closed loop says the server's pace decides; an open
// loop's Duration(n) is its schedule's last instant and Requests of that
// duration is n again; WithArrivals sets the cap Workers reports.
func TestPacersPlan(t *testing.T) {
	for key, p := range everyPacer {
		t.Run(key, func(t *testing.T) {
			s, open := p.(scheduled)
			_, timed := p.Requests(time.Minute)
			_, known := p.Duration(10)
			assert.Equal(t, open, timed, "only a schedule knows what a duration holds")
			assert.Equal(t, open, known, "only a schedule knows how long n requests take")
			if !open {
				assert.Equal(t, 6, p.Workers())
				return
			}
			for _, n := range []int{1, 7, 200} {
				sched := s.Schedule(n)
				d, _ := p.Duration(n)
				assert.InDelta(t, d, sched[n-1], 1, "Duration(%d) is the last instant", n)
				back, _ := p.Requests(d)
				assert.Equal(t, n, back, "Requests(Duration(%d))", n)
			}
			q := s.WithArrivals(load.Arrivals{MaxConcurrency: 9})
			assert.Equal(t, 9, q.Workers())
			assert.Equal(t, p.Level(), q.Level(), "arrivals are not part of the level")
		})
	}
}
