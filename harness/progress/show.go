package progress

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/secret"
)

// Show follows the progress file the test binary writes
// (File) and shows it on w: on a terminal one line per cell,
// rewritten in place; elsewhere a plain line at most every plainEvery with
// the latest update, so that a CI log shows movement without drowning (a
// bench has a hundred cells). It never writes to the results: that is go
// test's stdout.
//
// w is the stream itself, not a secret.Writer: that holds bytes until a
// newline, and a terminal's progress line has none, so it would show
// nothing until the run ends. Each line is redacted of sec instead (it
// holds a cell's name and counts, and is written whole).
type Show struct {
	path     string
	w        io.Writer
	sec      *secret.Set
	terminal bool
	stop     chan struct{}
	done     sync.WaitGroup
	shown    time.Time // when the last plain line was written
	whole    Whole
	mu       sync.Mutex
	open     bool   // a terminal line is showing
	last     string // and it says this
}

const (
	poll       = 250 * time.Millisecond
	plainEvery = 10 * time.Second
)

// Start begins following path, showing it on w redacted of sec —
// in place when terminal, the stream w writes to being one; stop with
// Close.
func Start(path string, w io.Writer, sec *secret.Set, terminal bool, plan Whole) *Show {
	plan.start, plan.runs = time.Now(), map[string]int{}
	p := &Show{path: path, w: w, sec: sec, terminal: terminal, stop: make(chan struct{}), shown: time.Now(), whole: plan}
	p.done.Add(1)
	go p.follow()
	return p
}

func (p *Show) Close() {
	close(p.stop)
	p.done.Wait()
	os.Remove(p.path)
}

func (p *Show) follow() {
	defer p.done.Done()
	var f *os.File
	var r *bufio.Reader
	var partial string
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for stopping := false; ; {
		if f == nil {
			if g, err := os.Open(p.path); err == nil {
				f, r = g, bufio.NewReader(g)
				defer f.Close()
			}
		}
		for r != nil {
			line, err := r.ReadString('\n')
			if err != nil {
				partial += line // a line still being written: finish it next time
				break
			}
			line, partial = partial+line, ""
			var ev Event
			if json.Unmarshal([]byte(line), &ev) == nil {
				p.show(ev)
			}
		}
		if stopping {
			p.mu.Lock()
			if p.open {
				fmt.Fprint(p.w, "\r\033[K")
			}
			p.open = false
			p.mu.Unlock()
			return
		}
		select {
		case <-p.stop:
			stopping = true // one more read: what was written since the last
		case <-tick.C:
		}
	}
}

func (p *Show) show(ev Event) {
	p.whole.add(ev)
	line := p.sec.Redact(Line(ev) + p.whole.line(ev))
	if p.terminal {
		p.mu.Lock()
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.open, p.last = true, line
		p.mu.Unlock()
		return
	}
	if time.Since(p.shown) < plainEvery {
		return
	}
	p.shown = time.Now()
	fmt.Fprintf(p.w, "progress: %s\n", line)
}

// over returns a writer for output that shares the terminal with the
// progress line: each write clears the line first and draws it again
// after, so that the two never mix. Elsewhere it is w itself.
func (p *Show) Over(w io.Writer) io.Writer {
	if !p.terminal {
		return w
	}
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.open {
			fmt.Fprint(p.w, "\r\033[K")
		}
		n, err := w.Write(b)
		if p.open {
			fmt.Fprint(p.w, p.last)
		}
		return n, err
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Line: "chat endpoint=sim concurrency=5: 12/23 requests, 8.1/s,
// 0 errors, 1.5s elapsed, ETA 1.4s".
func Line(ev Event) string {
	var b strings.Builder
	secs := ev.Elapsed.Seconds()
	fmt.Fprintf(&b, "%s: %d", ev.Cell, ev.Done)
	if ev.Total > 0 {
		fmt.Fprintf(&b, "/%d", ev.Total)
	}
	fmt.Fprintf(&b, " requests")
	if secs > 0 {
		fmt.Fprintf(&b, ", %.1f/s", float64(ev.Done)/secs)
	}
	fmt.Fprintf(&b, ", %d errors, %s elapsed", ev.Errors, ev.Elapsed.Round(100*time.Millisecond))
	switch {
	case ev.End:
		b.WriteString(", done")
	case ev.Until > 0:
		fmt.Fprintf(&b, ", ETA %s", max(ev.Until-ev.Elapsed, 0).Round(time.Second))
	case ev.Total > 0 && ev.Done > 0:
		eta := time.Duration(float64(ev.Elapsed) * float64(ev.Total-ev.Done) / float64(ev.Done))
		fmt.Fprintf(&b, ", ETA %s", eta.Round(100*time.Millisecond))
	}
	return b.String()
}

// Whole is the whole run's progress, beside the cell's: requests done
// of the plan's, cells (scenario × endpoint × level) whose every -count
// run ended, and an ETA from the rate so far.
type Whole struct {
	Requests, Cells, Count int // the plan's
	// Weight is each cell's time a request (its probed latency over its
	// workers), so that the ETA weighs a slow cell's requests as they
	// take; Total is the plan's requests weighed so. No weights: every
	// request weighs 1.
	Weight map[string]float64
	Total  float64
	start  time.Time
	ended  int            // requests of the cell calls that ended
	work   float64        // and their weight
	runs   map[string]int // cell → measured runs ended
	done   int            // cells done
}

// add counts an event of a cell.
func (w *Whole) add(ev Event) {
	if !ev.End {
		return
	}
	w.ended += ev.Done
	w.work += float64(ev.Done) * w.weightOf(ev.Cell)
	if ev.Probe {
		return
	}
	w.runs[ev.Cell]++
	if w.runs[ev.Cell] == w.Count {
		w.done++
	}
}

func (w *Whole) weightOf(cell string) float64 {
	if x, ok := w.Weight[cell]; ok {
		return x
	}
	return 1
}

// line is "; run: 340/2171 requests, 3/10 cells, ETA 1m12s" while ev's
// cell is at ev.Done. The ETA is the time so far, scaled by the work
// left over the work done.
func (w *Whole) line(ev Event) string {
	if w.Requests == 0 {
		return ""
	}
	done, work := w.ended, w.work
	if !ev.End {
		done += ev.Done
		work += float64(ev.Done) * w.weightOf(ev.Cell)
	}
	s := fmt.Sprintf("; run: %d/%d requests, %d/%d cells", done, w.Requests, w.done, w.Cells)
	total := w.Total
	if total == 0 {
		total = float64(w.Requests)
	}
	if el := time.Since(w.start); work > 0 && done < w.Requests && total > work {
		eta := time.Duration(float64(el) * (total - work) / work)
		s += ", ETA " + metric.Duration(eta)
	}
	return s
}
