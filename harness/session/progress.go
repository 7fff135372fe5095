package session

import (
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Progress is one update of a cell (scenario × endpoint × level), written
// as a JSON line to the file Child.Progress names, for llmsla bench to show
// on its stderr: go test's own output is the benchfmt record, where
// progress must never go.
type Progress struct {
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

// progressEvery bounds how often a cell writes an update.
const progressEvery = 500 * time.Millisecond

// progressFile writes Progress lines; nil writes nothing.
type progressFile struct {
	mu sync.Mutex
	f  *os.File
}

func openProgress(path string) *progressFile {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil // progress is a courtesy; the run does not depend on it
	}
	return &progressFile{f: f}
}

func (p *progressFile) close() {
	if p != nil {
		p.f.Close()
	}
}

// cell tracks one cell's progress; its add is safe for concurrent use.
type cell struct {
	p     *progressFile
	mu    sync.Mutex
	ev    Progress
	start time.Time
	last  time.Time
}

func (p *progressFile) cell(ev Progress) *cell {
	if p == nil {
		return nil
	}
	c := &cell{p: p, ev: ev, start: time.Now()}
	c.write()
	return c
}

// add counts one finished request.
func (c *cell) add(s *sample.Sample) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ev.Done++
	if !s.OK() {
		c.ev.Errors++
	}
	if time.Since(c.last) >= progressEvery {
		c.write()
	}
}

// end writes the cell's last update.
func (c *cell) end() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ev.End = true
	c.write()
}

func (c *cell) write() {
	c.last = time.Now()
	c.ev.Elapsed = c.last.Sub(c.start)
	b, _ := json.Marshal(c.ev)
	c.p.mu.Lock()
	c.p.f.Write(append(b, '\n'))
	c.p.mu.Unlock()
}
