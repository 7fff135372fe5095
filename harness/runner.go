package harness

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmsla/llmsla/harness/quality"
)

// Prompt is one request of a scenario and the check its answer must pass.
type Prompt struct {
	Request Request
	Case    string         // fixture case id, if any
	Check   *quality.Check // nil: latency only
}

// Prompts yields the i-th prompt of a scenario; scenarios cycle through
// their fixture cases.
type Prompts func(i int) Prompt

// Runner sends a scenario's requests closed-loop: a fixed number of workers,
// each sending its next request when the previous one ends.
type Runner struct {
	concurrency int
	warmup      int
	cold        bool
	probe       bool
	sink        func(*Sample)
	labels      Sample // scenario, endpoint: copied into each sample
}

// Option configures a Runner.
type Option func(*Runner)

// Concurrency sets the number of requests in flight.
func Concurrency(n int) Option { return func(r *Runner) { r.concurrency = max(1, n) } }

// Warmup sets the number of requests sent and discarded before measuring.
func Warmup(n int) Option { return func(r *Runner) { r.warmup = max(0, n) } }

// ColdFirst sends one request alone before the warm-up and marks it cold: the
// first request to an endpoint in a run, kept apart from warm percentiles.
func ColdFirst(on bool) Option { return func(r *Runner) { r.cold = on } }

// Sink receives every sample as it completes (cold and warm-up included,
// flagged), e.g. to write them to a file while the run goes on.
func Sink(fn func(*Sample)) Option { return func(r *Runner) { r.sink = fn } }

// Probe flags every sample of the run as warm-up: go test runs each
// benchmark once with b.N = 1 before the timed run, and those requests are
// warm-up, not measurements.
func Probe(on bool) Option { return func(r *Runner) { r.probe = on } }

// Labels names the scenario of the samples.
func Labels(scenario string) Option { return func(r *Runner) { r.labels.Scenario = scenario } }

// NewRunner returns a runner; by default one request at a time, no warm-up.
func NewRunner(opts ...Option) *Runner {
	r := &Runner{concurrency: 1}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Run sends n measured requests (plus the cold one and the warm-up) and
// returns every sample, cold and warm-up flagged. It stops early when ctx is
// done; the samples not sent are absent, the ones in flight are cancelled.
func (r *Runner) Run(ctx context.Context, c *Client, prompts Prompts, n int) []Sample {
	out := make([]Sample, 0, n+r.warmup+1)
	start := time.Now()
	r.labels.Run = fmt.Sprintf("%d.%d", os.Getpid(), runSeq.Add(1))
	seq := 0
	if r.cold && ctx.Err() == nil {
		p := prompts(0)
		s := c.Do(ctx, p.Request)
		r.label(&s, p, seq, start)
		s.Cold = true
		seq++
		out = append(out, r.emit(s))
	}
	if r.warmup > 0 {
		// Warm up at the run's concurrency, so that the pool holds as many
		// connections as the measured requests will use.
		warm := r.measure(ctx, c, prompts, r.warmup, seq, start, true)
		seq += r.warmup
		out = append(out, warm...)
	}
	return append(out, r.measure(ctx, c, prompts, n, seq, start, r.probe)...)
}

// measure runs the closed loop. Samples land in a preallocated slice at
// their sending index, so no lock is held on the hot path.
func (r *Runner) measure(ctx context.Context, c *Client, prompts Prompts, n, seq0 int, start time.Time, warmup bool) []Sample {
	samples := make([]Sample, n)
	sent := make([]bool, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var sinkMu sync.Mutex
	for w := 0; w < min(r.concurrency, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				p := prompts(i)
				s := c.Do(ctx, p.Request)
				r.label(&s, p, seq0+i, start)
				s.Warmup = warmup
				samples[i], sent[i] = s, true
				if r.sink != nil {
					sinkMu.Lock()
					r.sink(&samples[i])
					sinkMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	out := samples[:0]
	for i := range samples {
		if sent[i] {
			out = append(out, samples[i])
		}
	}
	return out
}

// runSeq numbers the runs of this process.
var runSeq atomic.Int64

func (r *Runner) label(s *Sample, p Prompt, seq int, start time.Time) {
	s.Scenario = r.labels.Scenario
	s.Run = r.labels.Run
	s.Concurrency = r.concurrency
	s.Seq = seq
	s.Case = p.Case
	s.Offset = s.Start.Sub(start)
	if p.Check != nil && s.OK() {
		q := p.Check.Run(s.Content, s.Finish)
		s.Quality = &q
	}
}

func (r *Runner) emit(s Sample) Sample {
	if r.sink != nil {
		r.sink(&s)
	}
	return s
}
