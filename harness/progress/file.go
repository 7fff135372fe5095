// Package progress is a run's progress as people watch it: the events
// one level's requests make as they end, written as JSON lines by the
// process that sends them (an observer of the session, [File]), and read
// and shown by the command that started it ([Show]): go test's own
// output is the benchfmt record, where progress must never go.
package progress

import (
	"context"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/internal/jsonl"
	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
)

// Event is one update of a level, one line of the progress file.
type Event struct {
	Cell    string        `json:"cell"`  // "chat endpoint=prod concurrency=5"
	Done    int           `json:"done"`  // requests finished, warm-up included
	Total   int           `json:"total"` // requests planned (0: until Until)
	Errors  int           `json:"errors"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Until   time.Duration `json:"until_ns,omitempty"` // a soak's duration
	End     bool          `json:"end,omitempty"`
	// Probe marks go test's probe of a benchmark (one warm-up request),
	// which is no cell of the plan.
	Probe bool `json:"probe,omitempty"`
}

// every bounds how often a level writes an update.
const every = 500 * time.Millisecond

// File is the observer that writes a session's progress events.
type File struct {
	observe.Nop
	a *jsonl.Appender

	mu     sync.Mutex
	levels map[*observe.Level]*level
}

// level is one level's progress.
type level struct {
	mu    sync.Mutex
	ev    Event
	start time.Time
	last  time.Time
}

// Open is the progress file at path; nil (which observes nothing) when
// path is "" or cannot be opened: progress is a courtesy, and the run
// does not depend on it.
func Open(path string) *File {
	if path == "" {
		return nil
	}
	a, err := jsonl.Create(path, "progress file", nil)
	if err != nil {
		return nil
	}
	return &File{a: a, levels: map[*observe.Level]*level{}}
}

// LevelStart writes the level's first update.
func (f *File) LevelStart(_ context.Context, lv *observe.Level) {
	l := &level{ev: Event{Cell: lv.Name(), Total: lv.Total, Until: lv.Until, Probe: lv.Probe}, start: time.Now()}
	if lv.Until > 0 {
		l.ev.Total = 0
	}
	f.mu.Lock()
	f.levels[lv] = l
	f.mu.Unlock()
	f.write(l)
}

// Sample counts one finished request.
func (f *File) Sample(lv *observe.Level, s *sample.Sample) {
	l := f.level(lv)
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ev.Done++
	if !s.OK() {
		l.ev.Errors++
	}
	if time.Since(l.last) >= every {
		f.writeLocked(l)
	}
}

// LevelEnd writes the level's last update.
func (f *File) LevelEnd(_ context.Context, lv *observe.Level, _ []sample.Sample) {
	l := f.level(lv)
	if l == nil {
		return
	}
	f.mu.Lock()
	delete(f.levels, lv)
	f.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ev.End = true
	f.writeLocked(l)
}

// Close closes the file.
func (f *File) Close() error { return f.a.Close() }

func (f *File) level(lv *observe.Level) *level {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.levels[lv]
}

func (f *File) write(l *level) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f.writeLocked(l)
}

// writeLocked writes l's update; callers hold l.mu.
func (f *File) writeLocked(l *level) {
	l.last = time.Now()
	l.ev.Elapsed = l.last.Sub(l.start)
	f.a.Append(l.ev)
}
