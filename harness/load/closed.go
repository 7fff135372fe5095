package load

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

const concurrencyExample = "[1, 5, 10]"

// concurrencyKind is concurrency: closed loops of so many workers.
var concurrencyKind = Kind{Key: "concurrency", Example: concurrencyExample,
	Levels: func(v Value) ([]Pacer, error) {
		return eachLevel(v, concurrencyExample, func(v Value) (Pacer, error) {
			c, err := v.Whole(1, MaxWorkers)
			return Closed(c), err
		})
	},
	At: func(x float64) Pacer { return Closed(int(x)) },
}

// Closed is the closed loop: this many workers, each sending its next
// request as soon as its previous one ends. The load adapts to the
// server — a slow server gets fewer requests — which is what a fixed pool
// of clients does, and why latencies from it understate what a stream of
// independent arrivals would see (see the open-loop pacers).
type Closed int

// Pace runs min(c, n) workers over the n requests.
func (c Closed) Pace(ctx context.Context, n int, send func(i int, sched time.Time)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(max(int(c), 1), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				send(i, time.Time{})
			}
		}()
	}
	wg.Wait()
}

// Level is concurrency=c.
func (c Closed) Level() sample.Level { return sample.NewLevel("concurrency", int(c)) }

// Split gives each shard its share of the workers, and refuses fewer
// workers than shards rather than round up (three shards of concurrency 2
// would put three requests in flight).
func (c Closed) Split(s Shard) (Pacer, error) {
	w, err := splitWorkers("concurrency", int(c), s)
	return Closed(w), err
}

// splitWorkers is shard s's share of the workers of a level of key, refused
// when there are fewer workers than shards.
func splitWorkers(key string, workers int, s Shard) (int, error) {
	if workers < s.N {
		return 0, fmt.Errorf("%s %d cannot be split over %d shards: give each at least one", key, workers, s.N)
	}
	return s.Share(workers), nil
}

// Workers is the number of requests in flight.
func (c Closed) Workers() int { return max(int(c), 1) }

// Requests is not the closed loop's to say: the server's pace decides.
func (Closed) Requests(time.Duration) (int, bool) { return 0, false }

// Duration is not the closed loop's to say: the server's pace decides.
func (Closed) Duration(int) (time.Duration, bool) { return 0, false }

// Length is 0: a closed loop runs for a count (or a soak's duration).
func (Closed) Length() time.Duration { return 0 }
