package sample

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// File appends samples as JSON lines. Each line goes out in one write on an
// O_APPEND file, so an interrupted run leaves every finished sample readable
// (at most the last line is cut, which Read reports as ErrCut).
type File struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	filter func([]byte) []byte
	err    error // the first error: the file no longer holds every sample
}

// Create opens path for appending, creating it if needed. filter, when not
// nil, rewrites each line before it is written (the secrets redactor).
func Create(path string, filter func([]byte) []byte) (*File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &File{f: f, path: path, filter: filter}, nil
}

// Close closes the file; its error is the first of the file's (Err).
func (w *File) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil {
		if err := w.f.Close(); err != nil && w.err == nil {
			w.err = fmt.Errorf("closing samples file %s: %w", w.path, err)
		}
		w.f = nil
	}
	return w.err
}

// Write appends one sample. The first error (a sample that does not
// encode, a write that fails) stops further writes and is kept for Err:
// a samples file missing requests must not pass for the run's record.
func (w *File) Write(s *Sample) {
	b, err := json.Marshal(s)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("samples file %s: request %d of run %s does not encode: %w", w.path, s.Seq, s.Run, err)
	}
	if w.f == nil || w.err != nil {
		return
	}
	if w.filter != nil {
		b = w.filter(b)
	}
	if _, err := w.f.Write(append(b, '\n')); err != nil {
		w.err = fmt.Errorf("writing samples file %s: %w", w.path, err)
	}
}

// Err is the file's first error: nil while it holds every sample written.
func (w *File) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// missing lists the fields every written sample has that s lacks.
func (s *Sample) missing() []string {
	var out []string
	if s.Scenario == "" {
		out = append(out, "scenario")
	}
	if s.Endpoint == "" {
		out = append(out, "endpoint")
	}
	if s.Start.IsZero() {
		out = append(out, "t0")
	}
	return out
}

// legacy holds fields of older sample files that Read migrates: before
// levels had labels, a sample carried its closed-loop concurrency alone;
// before the ITL histogram, it kept every inter-token gap.
type legacy struct {
	Concurrency int             `json:"concurrency"`
	Gaps        []time.Duration `json:"gaps_ns"`
}

var gapsKey = []byte(`"gaps_ns"`)

// ErrCut is wrapped by Read's error when a file's last line has no end: the
// file was cut short (an interrupted run, a copy that stopped). Read then
// returns the samples before it too, for a caller that says it takes
// partial data (llmsla verdict -partial, a bench that was interrupted).
var ErrCut = errors.New("the file was cut short: its last line has no end")

// Read reads a JSONL sample file. A last line without its newline is an
// error wrapping ErrCut, returned with the samples before it; a bad line
// elsewhere (not JSON, or without a scenario, endpoint or t0) is an error
// naming file and line. Files written before levels
// had labels ("concurrency": 5) read as level "concurrency=5", and their
// "gaps_ns" as the ITL histogram.
func Read(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sample
	r := bufio.NewReader(f)
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if err == io.EOF && len(bytes.TrimSpace(b)) > 0 {
			return out, fmt.Errorf("%s:%d: %w (an interrupted run?)", path, line, ErrCut)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			var s Sample
			if jerr := json.Unmarshal(b, &s); jerr != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, jerr)
			}
			if missing := s.missing(); len(missing) > 0 {
				// null or {} decodes to a zero sample, which would count as a
				// success of no scenario that took no time.
				return nil, fmt.Errorf("%s:%d: not a sample: no %s (every sample has scenario, endpoint and t0)",
					path, line, strings.Join(missing, ", "))
			}
			if s.Level == "" || s.ITL == nil && bytes.Contains(b, gapsKey) {
				var old legacy
				if json.Unmarshal(b, &old) == nil {
					if s.Level == "" && old.Concurrency > 0 {
						s.Level = NewLevel("concurrency", old.Concurrency)
					}
					if s.ITL == nil && len(old.Gaps) > 0 {
						s.ITL = new(Hist)
						for _, g := range old.Gaps {
							s.ITL.Add(g)
						}
					}
				}
			}
			out = append(out, s)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return out, nil
}
