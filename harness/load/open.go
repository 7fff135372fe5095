package load

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Arrival is how an open loop spaces its requests.
type Arrival string

// The arrival processes: the same mean rate, different spacing.
const (
	Constant Arrival = "constant" // every 1/rate
	Poisson  Arrival = "poisson"  // exponential gaps: independent arrivals, as many users make
	Gamma    Arrival = "gamma"    // gamma gaps of shape Burstiness: < 1 burstier than Poisson, > 1 smoother
)

// Arrivals lists the arrival processes, for configuration errors.
var Arrivals = []Arrival{Constant, Poisson, Gamma}

// Open is an open loop: requests arrive at a rate, each at its scheduled
// instant whatever the others do, as independent users' requests do. The
// schedule is computed from Seed before the first request, so a run can be
// repeated, and a request that goes out late records its lag (t0 − tsched)
// instead of silently moving the schedule: that is what lets latencies be
// measured from the scheduled start, counting the time a request waited
// behind a slow one (wrk2's correction for coordinated omission).
type Open struct {
	Rate    float64 // requests per second, > 0
	Arrival Arrival // Poisson when empty
	// Burstiness is the shape k of gamma gaps (vLLM's meaning): 1 is
	// Poisson, below 1 burstier, above 1 more regular. Gamma only.
	Burstiness float64
	// MaxConcurrency caps the requests in flight (0: no cap). A request
	// due while the cap is reached waits for a slot, and its lag says so.
	MaxConcurrency int
	Seed           uint64
}

// Validate reports a setting that cannot be paced.
func (o Open) Validate() error {
	switch {
	case !(o.Rate > 0) || math.IsInf(o.Rate, 0):
		return fmt.Errorf("rate %v: want a number of requests per second > 0", o.Rate)
	case o.Arrival != "" && o.Arrival != Constant && o.Arrival != Poisson && o.Arrival != Gamma:
		return fmt.Errorf("arrival %q: want one of %v", o.Arrival, Arrivals)
	case o.Arrival == Gamma && !(o.Burstiness > 0):
		return fmt.Errorf("burstiness %v: gamma arrivals need a shape > 0 (1 is Poisson)", o.Burstiness)
	case o.MaxConcurrency < 0:
		return fmt.Errorf("max_concurrency %d: want ≥ 0 (0: no cap)", o.MaxConcurrency)
	}
	return nil
}

// Level is rate=<requests per second>.
func (o Open) Level() sample.Level { return sample.NewLevel("rate", o.Rate) }

// Schedule returns the offsets of n requests from the start of the loop.
// The first request is one gap in, so that every scheduled offset is > 0.
func (o Open) Schedule(n int) []time.Duration {
	r := rand.New(rand.NewPCG(o.Seed, 0x6c6c6d736c61)) // "llmsla"
	out := make([]time.Duration, n)
	at := 0.0 // seconds
	for i := range out {
		at += o.gap(r)
		out[i] = time.Duration(at * float64(time.Second))
	}
	return out
}

// gap draws one inter-arrival time in seconds.
func (o Open) gap(r *rand.Rand) float64 {
	mean := 1 / o.Rate
	switch o.Arrival {
	case Constant:
		return mean
	case Gamma:
		return gamma(r, o.Burstiness) * mean / o.Burstiness
	default:
		return r.ExpFloat64() * mean
	}
}

// gamma draws from Gamma(k, 1) (Marsaglia and Tsang, 2000; for k < 1 the
// boost of their section 6).
func gamma(r *rand.Rand, k float64) float64 {
	if k < 1 {
		return gamma(r, k+1) * math.Pow(r.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// Pace sends request i at its scheduled instant, each on its own
// goroutine, the dispatcher never waiting for a response (only for a slot
// under MaxConcurrency). Lateness does not accumulate: every instant is
// counted from the start, never from the previous send.
func (o Open) Pace(ctx context.Context, n int, send func(i int, sched time.Time)) {
	sched := o.Schedule(n)
	var slots chan struct{}
	if o.MaxConcurrency > 0 {
		slots = make(chan struct{}, o.MaxConcurrency)
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	start := time.Now()
	for i, off := range sched {
		at := start.Add(off)
		if !waitUntil(ctx, timer, at) {
			return
		}
		if slots != nil {
			select {
			case <-ctx.Done():
				return
			case slots <- struct{}{}:
			}
		}
		if ctx.Err() != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if slots != nil {
				defer func() { <-slots }()
			}
			send(i, at)
		}()
	}
}
