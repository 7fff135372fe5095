// Package lateness measures how late this process's timers fire: one
// goroutine sleeps a period again and again and records by how much each
// sleep overran. On an idle machine the runtime wakes a sleeper within
// tens of microseconds; when the process is starved of CPU (other jobs on
// the cores, a cgroup quota, its own goroutines) every wake is late, and
// so is every timestamp the client takes. The figure bounds what a
// timing measurement made beside it can be trusted to: a reading of a
// chunk can be off by as much as the probe's lateness.
//
// The probe is the one way the repository measures that: every timing
// test bounds its assertion by the lateness shown while it ran
// (Start … Stop), and harness/health reads it per level (Mark … Since).
// Memory is bounded: lateness is counted in a log-linear histogram (6%
// resolution), and only the last MaxStalls stalls are kept.
package lateness

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// Period is how long the probe sleeps between readings.
const Period = time.Millisecond

// Stall is how late a wake must be to be kept as a stall (a span when the
// process ran nothing of ours).
const Stall = 2 * time.Millisecond

// MaxStalls bounds the stalls kept.
const MaxStalls = 1 << 14

// buckets: values below 32 µs exactly, then 16 buckets per power of two.
const nBuckets = 32 + 40*16

// Probe is a running probe. Its methods are safe for concurrent use.
type Probe struct {
	counts [nBuckets]atomic.Int64
	max    atomic.Int64 // ns
	sum    atomic.Int64 // ns

	mu     sync.Mutex
	stalls []Span // ring of the last MaxStalls
	next   int

	period     time.Duration
	quit, done chan struct{}
	once       sync.Once
}

// Span is a time the process was stalled: from when a wake was due to
// when it came.
type Span struct{ Due, Woke time.Time }

// Start starts a probe sleeping Period.
func Start() *Probe { return StartEvery(Period) }

// StartEvery starts a probe sleeping period (at least 100 µs).
func StartEvery(period time.Duration) *Probe {
	p := &Probe{period: max(period, 100*time.Microsecond), quit: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *Probe) run() {
	defer close(p.done)
	t := time.NewTimer(p.period)
	defer t.Stop()
	due := time.Now().Add(p.period)
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			now := time.Now()
			p.record(due, now)
			due = now.Add(p.period)
			t.Reset(p.period)
		}
	}
}

func (p *Probe) record(due, woke time.Time) {
	late := max(woke.Sub(due), 0)
	p.counts[bucket(late)].Add(1)
	p.sum.Add(int64(late))
	for {
		m := p.max.Load()
		if int64(late) <= m || p.max.CompareAndSwap(m, int64(late)) {
			break
		}
	}
	if late > Stall {
		p.mu.Lock()
		if len(p.stalls) < MaxStalls {
			p.stalls = append(p.stalls, Span{due, woke})
		} else {
			p.stalls[p.next] = Span{due, woke}
			p.next = (p.next + 1) % MaxStalls
		}
		p.mu.Unlock()
	}
}

// Mark is the probe's counts at an instant; Since gives the figures of
// the wakes after it.
type Mark struct {
	counts [nBuckets]int64
	sum    int64
	at     time.Time
}

// Mark takes the probe's counts now.
func (p *Probe) Mark() Mark {
	m := Mark{at: time.Now(), sum: p.sum.Load()}
	for i := range m.counts {
		m.counts[i] = p.counts[i].Load()
	}
	return m
}

// Since is the figures of the wakes since m (Max within the histogram's
// resolution, Stalls those kept that began after m).
func (p *Probe) Since(m Mark) Figures {
	now := p.Mark()
	for i := range now.counts {
		now.counts[i] -= m.counts[i]
	}
	now.sum -= m.sum
	f := figures(&now.counts, now.sum)
	f.Stalls = p.stallsAfter(m.at)
	return f
}

// Stop stops the probe and gives the figures of its whole run, Max exact.
func (p *Probe) Stop() Figures {
	p.once.Do(func() { close(p.quit) })
	<-p.done
	var c [nBuckets]int64
	for i := range c {
		c[i] = p.counts[i].Load()
	}
	f := figures(&c, p.sum.Load())
	f.Max = time.Duration(p.max.Load())
	f.P50, f.P90, f.P99 = min(f.P50, f.Max), min(f.P90, f.Max), min(f.P99, f.Max)
	f.Stalls = p.stallsAfter(time.Time{})
	return f
}

func (p *Probe) stallsAfter(t time.Time) []Span {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Span
	for i := range p.stalls {
		s := p.stalls[(p.next+i)%len(p.stalls)]
		if !s.Due.Before(t) {
			out = append(out, s)
		}
	}
	return out
}

// During probes while fn runs and gives the figures.
func During(fn func()) Figures {
	p := Start()
	fn()
	return p.Stop()
}

// Figures are a probe's lateness over a span: how many wakes, their
// percentiles (each the upper edge of its histogram bucket, so never
// under the truth by more than the bucket) and the stalls kept.
type Figures struct {
	N                  int
	Mean               time.Duration
	P50, P90, P99, Max time.Duration
	Stalls             []Span
}

// Busy: the process's timers woke more than half a millisecond late at
// p99 — the machine, or this process's own goroutines, kept it from
// running. An idle machine wakes within about 0.1 ms.
func (f Figures) Busy() bool { return f.P99 > 500*time.Microsecond }

// StalledIn is how much of [from, to] the process was stalled.
func (f Figures) StalledIn(from, to time.Time) time.Duration {
	var d time.Duration
	for _, s := range f.Stalls {
		lo, hi := s.Due, s.Woke
		if from.After(lo) {
			lo = from
		}
		if to.Before(hi) {
			hi = to
		}
		if hi.After(lo) {
			d += hi.Sub(lo)
		}
	}
	return d
}

func (f Figures) String() string {
	return fmt.Sprintf("timer lateness over %d wakes: p50 %s p90 %s p99 %s max %s", f.N, ms(f.P50), ms(f.P90), ms(f.P99), ms(f.Max))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond)) }

func figures(c *[nBuckets]int64, sum int64) Figures {
	var n int64
	for _, v := range c {
		n += v
	}
	f := Figures{N: int(n)}
	if n == 0 {
		return f
	}
	f.Mean = time.Duration(sum / n)
	at := func(q float64) time.Duration {
		rank := int64(q*float64(n-1)) + 1
		var seen int64
		for i, v := range c {
			if seen += v; seen >= rank {
				return upper(i)
			}
		}
		return upper(nBuckets - 1)
	}
	f.P50, f.P90, f.P99, f.Max = at(0.5), at(0.9), at(0.99), at(1)
	return f
}

// bucket is the histogram bucket of d, by its microseconds.
func bucket(d time.Duration) int {
	v := uint64(d / time.Microsecond)
	if v < 32 {
		return int(v)
	}
	e := bits.Len64(v) - 5
	i := 32 + (e-1)*16 + int(v>>e) - 16
	return min(i, nBuckets-1)
}

// upper is the upper edge of bucket i.
func upper(i int) time.Duration {
	if i < 32 {
		return time.Duration(i+1) * time.Microsecond
	}
	e := (i-32)/16 + 1
	m := uint64((i-32)%16 + 16)
	return time.Duration((m+1)<<e) * time.Microsecond
}
