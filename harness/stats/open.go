package stats

import (
	"math"
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
}

// openLoop accumulates Open over a run's measured samples.
type openLoop struct {
	scheduled              bool
	lag, ttft, ttfa, total []float64
	firstT0, lastT0        map[string]time.Time
	firstS, lastS          map[string]time.Duration
	sent                   map[string]int
}

func (o *openLoop) add(s *sample.Sample) {
	if o.firstT0 == nil {
		o.firstT0, o.lastT0, o.sent = map[string]time.Time{}, map[string]time.Time{}, map[string]int{}
		o.firstS, o.lastS = map[string]time.Duration{}, map[string]time.Duration{}
	}
	if f, ok := o.firstS[s.Run]; !ok || s.Sched < f {
		o.firstS[s.Run] = s.Sched
	}
	o.lastS[s.Run] = max(o.lastS[s.Run], s.Sched)
	if f, ok := o.firstT0[s.Run]; !ok || s.Start.Before(f) {
		o.firstT0[s.Run] = s.Start
	}
	if s.Start.After(o.lastT0[s.Run]) {
		o.lastT0[s.Run] = s.Start
	}
	o.sent[s.Run]++
	o.scheduled = o.scheduled || s.Scheduled()
	if s.Scheduled() {
		// Only a scheduled request has a lag; in closed loop there is none
		// to measure, and a lag objective there is not met, never 0.
		o.lag = append(o.lag, ms(s.Lag))
	}
	if !s.OK() {
		return
	}
	o.total = append(o.total, ms(s.Total+s.Lag))
	if s.TTFT > 0 {
		o.ttft = append(o.ttft, ms(s.TTFT+s.Lag))
	}
	if s.TTFA > 0 {
		o.ttfa = append(o.ttfa, ms(s.TTFA+s.Lag))
	}
}

func (o *openLoop) summary() Open {
	out := Open{Scheduled: o.scheduled, Lag: Describe(o.lag),
		TTFTSched: Describe(o.ttft), TTFASched: Describe(o.ttfa), TotalSched: Describe(o.total)}
	var n int
	var span, planned time.Duration
	for run, c := range o.sent {
		if c > 1 {
			n += c - 1
			span += o.lastT0[run].Sub(o.firstT0[run])
			planned += o.lastS[run] - o.firstS[run]
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
