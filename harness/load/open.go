package load

import (
	"context"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/internal/gamma"
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

// ArrivalProcesses lists the arrival processes, for configuration errors.
var ArrivalProcesses = []Arrival{Constant, Poisson, Gamma}

// The bounds of an open loop's settings, so that a slip of the keyboard is
// an error before the run rather than a run that cannot be sent.
const (
	// MaxRate is the highest rate an open loop asks: well above the
	// ~20,000 req/s one client keeps on schedule (BenchmarkPacerHTTP).
	MaxRate = 1_000_000
	// MinBurstiness is the burstiest gamma shape that can be drawn: a gap
	// of shape k < 1 is Gamma(k+1)·U^(1/k), and U^(1/k) underflows to 0 in
	// float64 when U < e^(−745·k) — 0.06% of the gaps at k = 0.01 (a CV of
	// 10, every request in a few bursts already), half of them at 0.001,
	// which would send nearly everything at once (burstiness 1e-300 sent
	// 4,302 req/s for 10 asked).
	MinBurstiness = 0.01
)

// Arrivals is how an open loop draws its schedule and caps its requests:
// the settings a scenario's open-loop levels share (arrival:, burstiness:,
// max_concurrency:, seed:), whatever their rates.
type Arrivals struct {
	Arrival Arrival // Poisson when empty
	// Burstiness is the shape k of gamma gaps (vLLM's meaning): 1 is
	// Poisson, below 1 burstier, above 1 more regular. Gamma only.
	Burstiness float64
	// MaxConcurrency caps the requests in flight (0: no cap). A request
	// due while the cap is reached waits for a slot, and its lag says so.
	MaxConcurrency int
	Seed           uint64
}

// OpenLoop is a pacer with a schedule: it takes the arrivals a scenario
// sets for all its open-loop levels.
type OpenLoop interface {
	Pacer
	// WithArrivals is the pacer drawing its schedule and capping its
	// requests as a says.
	WithArrivals(a Arrivals) Pacer
}

const rateExample = "[2, 5, 10]"

// rateKind is rate: open loops at so many requests per second.
var rateKind = Kind{Key: "rate", Example: rateExample,
	Levels: func(v Value) ([]Pacer, error) {
		return eachLevel(v, rateExample, func(v Value) (Pacer, error) {
			r, err := v.Number()
			if err != nil || checkRate("rate", r) != nil {
				return nil, v.Errorf("%s is not a rate (want requests per second, > 0 and ≤ %d)", v, MaxRate)
			}
			return Open{Rate: r}, nil
		})
	},
	At: func(x float64) Pacer { return Open{Rate: x} },
}

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

var _ OpenLoop = Open{}

// Validate reports a setting that cannot be paced.
func (o Open) Validate() error {
	if err := checkRate("rate", o.Rate); err != nil {
		return err
	}
	return o.arrivals().Validate()
}

// checkRate reports a rate that cannot be paced.
func checkRate(name string, r float64) error {
	if !(r > 0 && r <= MaxRate) {
		return fmt.Errorf("%s %v: want requests per second, > 0 and ≤ %d", name, r, MaxRate)
	}
	return nil
}

// Validate reports arrivals that cannot be drawn.
func (a Arrivals) Validate() error {
	switch {
	case a.Arrival != "" && !slices.Contains(ArrivalProcesses, a.Arrival):
		return fmt.Errorf("arrival %q: want one of %v", a.Arrival, ArrivalProcesses)
	case a.Arrival == Gamma && !(a.Burstiness >= MinBurstiness && !math.IsInf(a.Burstiness, 0)):
		return fmt.Errorf("burstiness %v: gamma arrivals need a shape ≥ %v (1 is Poisson, below 1 burstier)", a.Burstiness, MinBurstiness)
	case a.MaxConcurrency < 0:
		return fmt.Errorf("max_concurrency %d: want ≥ 0 (0: no cap)", a.MaxConcurrency)
	}
	return nil
}

// Level is rate=<requests per second>.
func (o Open) Level() sample.Level { return sample.NewLevel("rate", o.Rate) }

func (o Open) arrivals() Arrivals {
	return Arrivals{Arrival: o.Arrival, Burstiness: o.Burstiness, MaxConcurrency: o.MaxConcurrency, Seed: o.Seed}
}

// WithArrivals is the open loop at o's rate drawn as a says.
func (o Open) WithArrivals(a Arrivals) Pacer {
	o.Arrival, o.Burstiness, o.MaxConcurrency, o.Seed = a.Arrival, a.Burstiness, a.MaxConcurrency, a.Seed
	return o
}

// Split gives each shard rate/N, with a schedule seeded apart:
// independent arrival processes add up to one of the summed rate.
func (o Open) Split(s Shard) (Pacer, error) {
	a, err := o.arrivals().split(s)
	if err != nil {
		return nil, err
	}
	q := o.WithArrivals(a).(Open)
	q.Rate /= float64(s.N)
	return q, nil
}

// split is shard s's arrivals: its own seed, the same each time, and its
// share of the in-flight cap, refused when the cap has fewer slots than
// there are shards (three shards of max_concurrency 2 would put three in
// flight).
func (a Arrivals) split(s Shard) (Arrivals, error) {
	a.Seed = a.Seed*uint64(s.N) + uint64(s.I) + 1
	if a.MaxConcurrency > 0 {
		if a.MaxConcurrency < s.N {
			return a, fmt.Errorf("max_concurrency %d cannot be split over %d shards: give each at least one", a.MaxConcurrency, s.N)
		}
		a.MaxConcurrency = s.Share(a.MaxConcurrency)
	}
	return a, nil
}

// Workers is the in-flight cap, 0 when there is none.
func (o Open) Workers() int { return o.MaxConcurrency }

// Requests is what d holds at the rate, at least one.
func (o Open) Requests(d time.Duration) (int, bool) { return atLeastOne(o.Rate * d.Seconds()), true }

// Duration is n/Rate: the last of n requests is due then (Schedule).
func (o Open) Duration(n int) (time.Duration, bool) {
	return seconds(float64(max(n, 0)) / o.Rate), true
}

// Length is 0: an open loop runs for a count (or a soak's duration).
func (Open) Length() time.Duration { return 0 }

// Schedule returns the offsets of n requests from the start of the loop:
// its arrival process conditioned on the count, so that the n requests
// fill exactly the n/Rate seconds they are due in and the rate sent is the
// rate asked, while the seed still decides where each falls. The first is
// due one mean gap in (every offset > 0) and the last at n/Rate; the n−1
// gaps between are drawn from the process and scaled to add up to
// (n−1)/Rate. For Poisson arrivals the instants between are then uniform
// over that window, sorted — the Poisson process given its count — and
// gamma gaps keep their shape, so burstiness is what was asked. Pinning
// both ends (rather than drawing all n uniformly over [0, n/Rate]) makes
// the rate the report measures, (n−1) over the first-to-last span, the
// rate asked exactly instead of within ±√2/n.
func (o Open) Schedule(n int) []time.Duration {
	out := make([]time.Duration, n)
	o.arrivals().units(n, func(i int, u float64) { out[i] = seconds(u / o.Rate) })
	return out
}

// units calls at(i, u) for each of the n instants of a unit-rate schedule
// conditioned on its count (Open.Schedule), u in mean gaps from the start:
// u = 1 for the first, n for the last. The gaps are drawn twice from the
// same seed — once to add them up, once to place the instants — rather
// than held, so that a soak's million-request schedule needs no second
// slice.
func (a Arrivals) units(n int, at func(i int, u float64)) {
	if n <= 0 {
		return
	}
	sum, draw := 0.0, a.gaps()
	for range n - 1 {
		sum += draw()
	}
	// sum is 0 only when every gap underflowed, a shape below
	// MinBurstiness that Validate refuses: spaced evenly then.
	even := !(sum > 0) || math.IsInf(sum, 0)
	scale := float64(n-1) / sum
	draw, u := a.gaps(), 1.0
	at(0, u)
	for i := 1; i < n; i++ {
		switch g := draw(); {
		case i == n-1:
			u = float64(n) // exactly, whatever the sum's rounding
		case even:
			u++
		default:
			u += g * scale
		}
		at(i, u)
	}
}

// gaps returns a draw of inter-arrival times of mean 1, from the seed.
func (a Arrivals) gaps() func() float64 {
	r := rand.New(rand.NewPCG(a.Seed, 0x6c6c6d736c61)) // "llmsla"
	switch a.Arrival {
	case Constant:
		return func() float64 { return 1 }
	case Gamma:
		k := a.Burstiness
		return func() float64 { return gamma.Draw(r, k) / k }
	default:
		return r.ExpFloat64
	}
}

// seconds is s seconds as a Duration, to the nearest nanosecond (so that
// a constant schedule's gaps are equal), saturated rather than wrapped
// around when a rate is so low that it overflows (config refuses those
// levels, naming their duration).
func seconds(s float64) time.Duration {
	if ns := math.Round(s * float64(time.Second)); ns < math.MaxInt64 {
		return time.Duration(ns)
	}
	return math.MaxInt64
}

// atLeastOne is the whole number of requests x rounds up to, at least one
// and saturated. A millionth of a request is rounding (of a ramp's
// inverse, of a duration's nanoseconds), not one more request.
func atLeastOne(x float64) int {
	if !(x < math.MaxInt32) {
		return math.MaxInt32
	}
	return max(1, int(math.Ceil(x-1e-6)))
}

// Pace sends request i at its scheduled instant, each on its own
// goroutine (pace).
func (o Open) Pace(ctx context.Context, n int, send func(i int, sched time.Time)) {
	pace(ctx, slices.All(o.Schedule(n)), o.MaxConcurrency, send)
}

// pace sends each request i at its offset from now, as sched yields them
// in order (a schedule drawn before, or a trace read as it goes), each on
// its own goroutine, the dispatcher never waiting for a response (only
// for a slot when maxInFlight > 0). Lateness does not accumulate: every
// instant is counted from the start, never from the previous send.
func pace(ctx context.Context, sched iter.Seq2[int, time.Duration], maxInFlight int, send func(i int, sched time.Time)) {
	var slots chan struct{}
	if maxInFlight > 0 {
		slots = make(chan struct{}, maxInFlight)
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
