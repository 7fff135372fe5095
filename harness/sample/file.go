package sample

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
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
