package load

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

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

// Workers is the number of requests in flight.
func (c Closed) Workers() int { return max(int(c), 1) }

// Level is concurrency=c.
func (c Closed) Level() sample.Level { return sample.NewLevel("concurrency", int(c)) }
