package load

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// Runner sends a run's requests: a cold one alone, a warm-up, then the
// measured ones, each at the time its Pacer says.
type Runner struct {
	warmup int
	cold   bool
	probe  bool
	dur    time.Duration
	slice  time.Duration
	sink   func(*sample.Sample)
	tag    func(*sample.Sample)
	// A conversation's (conversation.go): the seed of its think times,
	// and the header that names it to a router.
	seed   uint64
	header string
	begin  func(run string)
	until  func() bool
}

// Option configures a Runner.
type Option func(*Runner)

// Warmup sets the number of requests sent, at the run's own load, and
// flagged as warm-up before measuring.
func Warmup(n int) Option { return func(r *Runner) { r.warmup = max(0, n) } }

// ColdFirst sends one request alone before the warm-up and marks it cold: the
// first request to an endpoint in a run, kept apart from warm percentiles.
func ColdFirst(on bool) Option { return func(r *Runner) { r.cold = on } }

// Sink receives every sample as it completes (cold and warm-up included,
// flagged), e.g. to write them to a file while the run goes on. Calls are
// serialised.
func Sink(fn func(*sample.Sample)) Option { return func(r *Runner) { r.sink = fn } }

// Probe flags every sample of the run as warm-up: go test runs each
// benchmark once with b.N = 1 before the timed run, and those requests are
// warm-up, not measurements.
func Probe(on bool) Option { return func(r *Runner) { r.probe = on } }

// For stops sending measured requests once d has passed since the first
// (a soak: a duration instead of a count); the ones in flight finish. The
// n given to Run is then a ceiling.
func For(d time.Duration) Option { return func(r *Runner) { r.dur = d } }

// SliceLength numbers each sample's time slice: its offset from the start
// of the run divided by d (a soak's drift is read slice by slice).
func SliceLength(d time.Duration) Option { return func(r *Runner) { r.slice = d } }

// Tag is called on every sample before the sink sees it, to label it
// (scenario, fixture size).
func Tag(fn func(*sample.Sample)) Option { return func(r *Runner) { r.tag = fn } }

// Measuring is called with the run's id once the cold request and the
// warm-up have ended, as the measured requests start (a server's metrics
// read before them); it must return at once.
func Measuring(fn func(run string)) Option { return func(r *Runner) { r.begin = fn } }

// Until stops sending measured requests once done reports true, asked
// after each measured sample reaches the sink (a level whose objectives
// are decided: stop: decided); the ones in flight finish. The n given to
// Run is then a ceiling, as with For; done decides the floor.
func Until(done func() bool) Option { return func(r *Runner) { r.until = done } }

// NewRunner returns a runner; by default no cold request and no warm-up.
func NewRunner(opts ...Option) *Runner {
	r := &Runner{}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Run sends n measured requests from src through d at p's pace (plus the
// cold one and the warm-up) and returns every sample in sending order, cold
// and warm-up flagged. Measured request i is src.Prompt(i); the cold request
// and the warm-up ask prompts 0, 1, … again, so that they use no position of
// the source. Run stops early when ctx is done; the samples not sent are
// absent, the ones in flight are cancelled.
func (r *Runner) Run(ctx context.Context, d Doer, src Source, p Pacer, n int) []sample.Sample {
	run := &run{r: r, d: d, src: src, level: p.Level(), id: NewRunID(), start: time.Now()}
	// The cold request and the warm-up; the measured ones are appended
	// after the run, never preallocated here: a soak's n is only a
	// ceiling (a million asked held 618 MB of empty samples).
	var out []sample.Sample
	measure := run.measure
	if PacesSessions(p) {
		measure = run.converse
	}
	if r.cold && ctx.Err() == nil {
		s := run.send(ctx, 0, 0, time.Time{})
		s.Cold = true
		run.emit(&s)
		out = append(out, s)
	}
	seq := len(out)
	if r.warmup > 0 {
		// Warm up at the run's own load, so that the pool holds as many
		// connections as the measured requests will use.
		out = append(out, measure(ctx, p, r.warmup, seq, true)...)
		seq += r.warmup
	}
	if r.begin != nil && ctx.Err() == nil {
		r.begin(run.id)
	}
	measured := measure(ctx, p, n, seq, r.probe)
	if len(out) == 0 {
		return measured
	}
	return append(out, measured...)
}

// run is the state of one Runner.Run.
type run struct {
	r      *Runner
	d      Doer
	src    Source
	level  sample.Level
	id     string
	start  time.Time
	sinkMu sync.Mutex
	extra  atomic.Int64 // the next Seq of an agent loop's later steps (agent.go)
}

// measure lets the pacer send up to n requests (for the runner's
// duration, if it has one) and returns their samples in sending order.
func (run *run) measure(ctx context.Context, p Pacer, n, seq0 int, warmup bool) []sample.Sample {
	pace, cancel := run.pacing(ctx, warmup)
	defer cancel()
	var mu sync.Mutex
	// Preallocated up to a bound (a soak's n is only a ceiling), so that
	// growing the slice makes no garbage for the collector to stop the
	// pacer for while requests go out.
	samples := make([]sample.Sample, 0, min(n, 1<<16))
	keepAt := func(s *sample.Sample) {
		s.Warmup = warmup
		run.emit(s)
		mu.Lock()
		samples = append(samples, *s)
		mu.Unlock()
		if !warmup && run.r.until != nil && run.r.until() {
			cancel()
		}
	}
	keep := func(s sample.Sample) { keepAt(&s) }
	run.extra.Store(int64(seq0 + n))
	// The pacer stops starting requests when pace is done; the ones in
	// flight go on under ctx and finish. A measured agent loop is one
	// send of the pacer (a closed loop keeps so many loops in flight);
	// warm-up sends its first step alone.
	p.Pace(pace, n, func(i int, sched time.Time) {
		pr := run.src.Prompt(i)
		if pr.Agent != nil && !warmup {
			run.loop(ctx, pr, seq0+i, sched, keep)
			return
		}
		// On the heap, not the stack: a request's goroutine waits on its
		// stream under this frame, and a sample held by value in each
		// frame down to the client took the stack past 8 KiB, to 16 KiB a
		// stream (BenchmarkOpenLoopMemory).
		s := new(sample.Sample)
		run.into(ctx, run.d, &pr, seq0+i, sched, s)
		keepAt(s)
	})
	slices.SortFunc(samples, func(a, b sample.Sample) int { return a.Seq - b.Seq })
	return samples
}

// pacing is the context the pacer sends under: ctx, or for the measured
// requests of a run with a duration, ctx until that duration has passed,
// or of a run with Until, ctx until it is done.
func (run *run) pacing(ctx context.Context, warmup bool) (context.Context, context.CancelFunc) {
	switch {
	case warmup:
	case run.r.dur > 0:
		return context.WithTimeout(ctx, run.r.dur)
	case run.r.until != nil:
		return context.WithCancel(ctx)
	}
	return ctx, func() {}
}

// send does prompt i and labels its sample.
func (run *run) send(ctx context.Context, i, seq int, sched time.Time) sample.Sample {
	p := run.src.Prompt(i)
	return run.one(ctx, run.d, p, p.Request, seq, sched, 0)
}

// one sends req, prompt p's request, a step of its agent loop (step from
// 1; 0 alone) or a turn of its conversation, through d, and labels and
// judges its sample.
func (run *run) one(ctx context.Context, d Doer, p Prompt, req stream.Request, seq int, sched time.Time, step int) sample.Sample {
	asked := time.Now()
	s := d.Do(ctx, req)
	run.label(&s, &p, asked, seq, sched, step)
	return s
}

// into is one for prompt p alone, its sample written to s.
func (run *run) into(ctx context.Context, d Doer, p *Prompt, seq int, sched time.Time, s *sample.Sample) {
	asked := time.Now()
	doInto(ctx, d, p.Request, s)
	run.label(s, p, asked, seq, sched, 0)
}

// doInto has d write its sample to s: in place when d can
// (stream.Client.DoInto), else copied from what Do returns.
func doInto(ctx context.Context, d Doer, req stream.Request, s *sample.Sample) {
	if di, ok := d.(interface {
		DoInto(context.Context, stream.Request, *sample.Sample)
	}); ok {
		di.DoInto(ctx, req, s)
		return
	}
	doCopy(ctx, d, req, s)
}

// doCopy is doInto for a Doer that only returns its sample. Apart, so that
// the copy's room is not in the frames of a Doer that writes in place: the
// request's goroutine waits under them as long as its stream lasts, and
// each sample-sized frame on its stack took it past 8 KiB
// (BenchmarkOpenLoopMemory).
//
//go:noinline
func doCopy(ctx context.Context, d Doer, req stream.Request, s *sample.Sample) { *s = d.Do(ctx, req) }

// label labels and judges the sample of prompt p, asked at asked.
func (run *run) label(s *sample.Sample, p *Prompt, asked time.Time, seq int, sched time.Time, step int) {
	if s.Start.IsZero() {
		// A request that failed before it was sent (it could not be
		// encoded) still happened now: every sample has its t0, and a
		// samples file without one is refused as not a sample.
		s.Start = asked
	}
	if !sched.IsZero() {
		s.Sched, s.Lag = sched.Sub(run.start), s.Start.Sub(sched)
	}
	s.Run, s.Level, s.Seq, s.Case, s.Asked = run.id, run.level, seq, p.Case, p.Asked
	s.Offset = s.Start.Sub(run.start)
	if run.r.slice > 0 {
		s.Slice = int(s.Offset / run.r.slice)
	}
	s.Step = step // the loop names its session
	if p.Check != nil && s.OK() {
		q := p.Check.Judge(s)
		s.Quality = &q
	}
}

func (run *run) emit(s *sample.Sample) {
	if run.r.tag != nil {
		run.r.tag(s)
	}
	if run.r.sink != nil {
		run.sinkMu.Lock()
		run.r.sink(s)
		run.sinkMu.Unlock()
	}
}

// process is a random id of this process, so that runs of two shards in
// containers (where each may be pid 1) never share an id.
var process = func() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return hex.EncodeToString(b[:])
}()

var runSeq atomic.Int64

// NewRunID returns an id no other run, in this process or another, has:
// a random process id and the run's number in it.
func NewRunID() string { return process + "." + strconv.FormatInt(runSeq.Add(1), 10) }
