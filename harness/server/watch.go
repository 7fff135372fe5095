package server

import (
	"context"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Source is one way to read a server's account: its /metrics (Metrics),
// Ollama's /api/ps, its process on this machine (Process). Read fills
// rd's series (absolute values: the watch turns counters into
// increases); an error is a failed reading, counted and shown, never an
// error of the run.
type Source interface {
	Name() string
	Read(ctx context.Context, rd *Reading) error
}

// SourceFunc makes a Source of a function.
func SourceFunc(name string, read func(ctx context.Context, rd *Reading) error) Source {
	return sourceFunc{name, read}
}

type sourceFunc struct {
	name string
	read func(context.Context, *Reading) error
}

func (s sourceFunc) Name() string                                { return s.name }
func (s sourceFunc) Read(ctx context.Context, rd *Reading) error { return s.read(ctx, rd) }

// Labels name the run a watch reads the server over.
type Labels struct {
	Scenario, Endpoint string
	Level              sample.Level
	Shard              string // "I/N" of a sharded run
}

// DefaultEvery is how often a level's server is read unless
// server_metrics.every says otherwise.
const DefaultEvery = time.Second

// Timeout is how long one reading may take: its interval, within 250 ms
// and 10 s. A reading that takes longer failed; a source is read once at
// a time, so a hanging /metrics skips its ticks and delays nothing else.
func Timeout(every time.Duration) time.Duration {
	return min(max(every, 250*time.Millisecond), 10*time.Second)
}

// Watch reads a server's account over one run's measured requests: each
// source once as they start (Begin), every interval while they run, and
// once after they end (End), each on its own goroutine and its own
// connection, never in the measured requests' path. Each reading goes to
// the sink as it is taken (the file) and into the run's figures.
type Watch struct {
	sources []Source
	every   time.Duration
	labels  Labels
	sink    func(*Reading)

	mu    sync.Mutex // the window and the sink
	win   *Window
	run   string
	sent  int
	begun bool

	ending       chan struct{}
	during, stop context.CancelFunc
	duringCtx    context.Context
	wg           sync.WaitGroup
}

// NewWatch prepares a watch of sources every interval (DefaultEvery when
// 0); sink, when not nil, receives each reading. Nothing is read before
// Begin.
func NewWatch(sources []Source, every time.Duration, l Labels, sink func(*Reading)) *Watch {
	if every <= 0 {
		every = DefaultEvery
	}
	w := &Watch{sources: sources, every: every, labels: l, sink: sink, win: NewWindow(), ending: make(chan struct{})}
	w.duringCtx, w.during = context.WithCancel(context.Background())
	return w
}

// Begin starts reading: the reading before the run's measured requests,
// then one every interval. It returns at once.
func (w *Watch) Begin(run string) {
	w.mu.Lock()
	w.run, w.begun = run, true
	w.mu.Unlock()
	for _, src := range w.sources {
		w.wg.Add(1)
		go w.loop(src)
	}
}

// End takes the reading after the run's sent measured requests and
// returns the run's figures; nil when Begin was never called (no
// measured request went out). It waits for the readings in flight at
// most one Timeout: one in the middle of the level is abandoned.
func (w *Watch) End(sent int) *stats.Server {
	w.mu.Lock()
	begun := w.begun
	w.sent = sent
	w.mu.Unlock()
	if !begun {
		return nil
	}
	close(w.ending)
	w.during()
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.win.Server()
}

func (w *Watch) loop(src Source) {
	defer w.wg.Done()
	d := &deltas{last: map[string]Series{}}
	w.read(context.Background(), src, d, Before)
	t := time.NewTicker(w.every)
	defer t.Stop()
	for {
		select {
		case <-w.ending:
			w.read(context.Background(), src, d, After)
			return
		case <-t.C:
			w.read(w.duringCtx, src, d, During)
		}
	}
}

// read takes one reading of src and hands it on.
func (w *Watch) read(parent context.Context, src Source, d *deltas, p Phase) {
	w.mu.Lock()
	rd := &Reading{Source: src.Name(), Scenario: w.labels.Scenario, Endpoint: w.labels.Endpoint, Level: w.labels.Level,
		Shard: w.labels.Shard, Run: w.run, Phase: p, At: time.Now()}
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(parent, Timeout(w.every))
	err := src.Read(ctx, rd)
	if err == nil {
		err = rd.keepValid()
	}
	cancel()
	rd.Took = time.Since(rd.At)
	if err != nil && p == During && parent.Err() != nil {
		return // abandoned at the end of the level: not a failure of the server
	}
	if err != nil {
		rd.Err, rd.Series = errText(err), nil
	} else {
		d.apply(rd)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if p == After {
		rd.Sent = w.sent
	}
	w.win.Add(rd)
	if w.sink != nil {
		w.sink(rd)
	}
}

// maxErr bounds an error kept in a reading.
const maxErr = 300

// errText is an error as a reading keeps it: what a server sent in it
// escaped (Check refuses a control character), cut on a rune's boundary.
func errText(err error) string {
	s := escape.Text(err.Error())
	if len(s) > maxErr {
		n := maxErr
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// deltas turns one source's cumulative series into increases since its
// previous reading, in place; the reading before the level keeps its
// totals, which the increases start from. A series new since then counts
// from 0 (a label seen for the first time); one that went back, a
// restart, counts from 0 too and is named in the reading's Reset.
type deltas struct{ last map[string]Series }

func (d *deltas) apply(rd *Reading) {
	for i := range rd.Series {
		se := &rd.Series[i]
		if !se.cumulative() {
			continue
		}
		abs := *se
		abs.Counts = slices.Clone(se.Counts)
		prev, seen := d.last[se.key()]
		d.last[se.key()] = abs
		if rd.Phase == Before || !seen {
			continue
		}
		if !subtract(se, &prev) {
			rd.Reset = append(rd.Reset, se.key())
		}
	}
}

// subtract makes se its increase over prev; false (se left whole) when a
// count went back or the buckets changed. A histogram's sum may fall (it
// sums negative observations too).
func subtract(se, prev *Series) bool {
	if se.Value < prev.Value || len(se.Counts) != len(prev.Counts) || !slices.Equal(se.Le, prev.Le) {
		return false
	}
	for i := range se.Counts {
		if se.Counts[i] < prev.Counts[i] {
			return false
		}
	}
	se.Value -= prev.Value
	se.Sum -= prev.Sum
	for i := range se.Counts {
		se.Counts[i] -= prev.Counts[i]
	}
	return true
}
