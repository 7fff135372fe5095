package stats

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Open is what an open loop adds to a run's figures (METRICS.md, load
// shapes): how late the client sent, latencies from the scheduled start,
// and the rate it achieved. In closed loop a request is due when it is
// sent: Scheduled is false, lag is zero and the *Sched latencies equal the
// plain ones.
type Open struct {
	Scheduled bool
	// Lag is t0 − tsched in ms over every measured request with a
	// schedule, failed ones included: it is about sending, not answering.
	// Empty (not measured) in closed loop.
	Lag Summary
	// Latencies in ms from tsched, over successful requests: what a user
	// who arrived at tsched waited, including any wait behind a slow
	// request (wrk2's correction for coordinated omission).
	TTFTSched, TTFASched, TotalSched Summary
	// Achieved is the rate requests were sent at: (n − 1) / (last t0 −
	// first t0) in each run, runs added up. Planned is the same over the
	// scheduled instants: a random schedule of n requests is off its mean
	// rate by about 1/√n, so the pacer is judged by Achieved against
	// Planned, the schedule by Planned against the rate asked.
	Achieved, Planned float64
	// Shards is how many shards the level's runs were split over, 1 when
	// none was: each shard schedules its share of the rate, and Achieved
	// and Planned, taken per run, are a shard's.
	Shards int
}

// openLoop accumulates the latencies of Open over a run's measured
// samples; the rates come from each run's instants (run).
type openLoop struct {
	scheduled              bool
	shards                 int
	lag, ttft, ttfa, total []float64
}

func (o *openLoop) add(s *sample.Sample) {
	o.scheduled = o.scheduled || s.Scheduled()
	if _, n, ok := strings.Cut(s.Shard, "/"); ok {
		if k, err := strconv.Atoi(n); err == nil {
			o.shards = max(o.shards, k)
		}
	}
	if s.Scheduled() {
		// Only a scheduled request has a lag; in closed loop there is none
		// to measure, and a lag objective there is not met, never 0.
		o.lag = append(o.lag, Ms(s.Lag))
	}
	if !s.OK() {
		return
	}
	o.total = append(o.total, Ms(s.Total+s.Lag))
	if s.TTFT > 0 {
		o.ttft = append(o.ttft, Ms(s.TTFT+s.Lag))
	}
	if s.TTFA > 0 {
		o.ttfa = append(o.ttfa, Ms(s.TTFA+s.Lag))
	}
}

func (o *openLoop) summary(runs map[string]*run) Open {
	out := Open{Scheduled: o.scheduled, Shards: max(1, o.shards), Lag: Describe(o.lag),
		TTFTSched: Describe(o.ttft), TTFASched: Describe(o.ttfa), TotalSched: Describe(o.total)}
	var n int
	var span, planned time.Duration
	for _, r := range runs {
		if r.sent > 1 {
			n += r.sent - 1
			span += r.lastT0.Sub(r.first)
			planned += r.lastS - r.firstS
		}
	}
	out.Achieved, out.Planned = math.NaN(), math.NaN()
	if span > 0 {
		out.Achieved = float64(n) / span.Seconds()
	}
	if planned > 0 && o.scheduled {
		out.Planned = float64(n) / planned.Seconds()
	}
	return out
}
