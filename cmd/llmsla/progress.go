package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/session"
)

// progressShow follows the progress file the test binary writes
// (session.Child.Progress) and shows it on w: on a terminal one line per cell,
// rewritten in place; elsewhere a plain line at most every plainEvery with
// the latest update, so that a CI log shows movement without drowning (a
// bench has a hundred cells). It never writes to the results: that is go
// test's stdout.
//
// w is the stream itself, not a secret.Writer: that holds bytes until a
// newline, and a terminal's progress line has none, so it would show
// nothing until the run ends. Each line is redacted of sec instead (it
// holds a cell's name and counts, and is written whole).
type progressShow struct {
	path     string
	w        io.Writer
	sec      *secret.Set
	terminal bool
	stop     chan struct{}
	done     sync.WaitGroup
	shown    time.Time // when the last plain line was written
	whole    wholeRun
	mu       sync.Mutex
	open     bool   // a terminal line is showing
	last     string // and it says this
}

const (
	progressPoll = 250 * time.Millisecond
	plainEvery   = 10 * time.Second
)

// startProgress begins following path, showing it on w redacted of sec —
// in place when terminal, the stream w writes to being one; stop with
// close.
func startProgress(path string, w io.Writer, sec *secret.Set, terminal bool, plan wholeRun) *progressShow {
	plan.start, plan.runs = time.Now(), map[string]int{}
	p := &progressShow{path: path, w: w, sec: sec, terminal: terminal, stop: make(chan struct{}), shown: time.Now(), whole: plan}
	p.done.Add(1)
	go p.follow()
	return p
}

func (p *progressShow) close() {
	close(p.stop)
	p.done.Wait()
	os.Remove(p.path)
}

func (p *progressShow) follow() {
	defer p.done.Done()
	var f *os.File
	var r *bufio.Reader
	var partial string
	tick := time.NewTicker(progressPoll)
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
			var ev session.Progress
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

func (p *progressShow) show(ev session.Progress) {
	p.whole.add(ev)
	line := p.sec.Redact(progressLine(ev) + p.whole.line(ev))
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
func (p *progressShow) over(w io.Writer) io.Writer {
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

// progressLine: "chat endpoint=sim concurrency=5: 12/23 requests, 8.1/s,
// 0 errors, 1.5s elapsed, ETA 1.4s".
func progressLine(ev session.Progress) string {
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

// wholeRun is the whole run's progress, beside the cell's: requests done
// of the plan's, cells (scenario × endpoint × level) whose every -count
// run ended, and an ETA from the rate so far.
type wholeRun struct {
	requests, cells, count int // the plan's
	// weight is each cell's time a request (its probed latency over its
	// workers), so that the ETA weighs a slow cell's requests as they
	// take; total is the plan's requests weighed so. No weights: every
	// request weighs 1.
	weight map[string]float64
	total  float64
	start  time.Time
	ended  int            // requests of the cell calls that ended
	work   float64        // and their weight
	runs   map[string]int // cell → measured runs ended
	done   int            // cells done
}

// add counts an event of a cell.
func (w *wholeRun) add(ev session.Progress) {
	if !ev.End {
		return
	}
	w.ended += ev.Done
	w.work += float64(ev.Done) * w.weightOf(ev.Cell)
	if ev.Probe {
		return
	}
	w.runs[ev.Cell]++
	if w.runs[ev.Cell] == w.count {
		w.done++
	}
}

func (w *wholeRun) weightOf(cell string) float64 {
	if x, ok := w.weight[cell]; ok {
		return x
	}
	return 1
}

// line is "; run: 340/2171 requests, 3/10 cells, ETA 1m12s" while ev's
// cell is at ev.Done. The ETA is the time so far, scaled by the work
// left over the work done.
func (w *wholeRun) line(ev session.Progress) string {
	if w.requests == 0 {
		return ""
	}
	done, work := w.ended, w.work
	if !ev.End {
		done += ev.Done
		work += float64(ev.Done) * w.weightOf(ev.Cell)
	}
	s := fmt.Sprintf("; run: %d/%d requests, %d/%d cells", done, w.requests, w.done, w.cells)
	total := w.total
	if total == 0 {
		total = float64(w.requests)
	}
	if el := time.Since(w.start); work > 0 && done < w.requests && total > work {
		eta := time.Duration(float64(el) * (total - work) / work)
		s += ", ETA " + roundDuration(eta)
	}
	return s
}

// isTerminal reports whether w is a character device (a terminal). A
// variable, for a test to stand a buffer in for a terminal.
var isTerminal = terminalFile

func terminalFile(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
