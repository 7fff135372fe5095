package sample

import (
	"fmt"

	"github.com/llmsla/llmsla/harness/internal/jsonl"
)

// File appends samples as JSON lines (package jsonl: one write a line on
// an O_APPEND file, so an interrupted run leaves every finished sample
// readable; at most the last line is cut, which Read reports as ErrCut).
// Each sample is held to the reader's rules (Check) before it is
// written: a sample the reader would refuse is never written, and the
// file's error says which and why, so that the run stops rather than end
// in a record nobody can judge.
type File struct {
	a *jsonl.Appender
}

// Create opens path for appending, creating it if needed. filter, when not
// nil, rewrites each line before it is written (the secrets redactor).
func Create(path string, filter func([]byte) []byte) (*File, error) {
	a, err := jsonl.Create(path, "samples file", filter)
	if err != nil {
		return nil, err
	}
	return &File{a: a}, nil
}

// Close closes the file; its error is the first of the file's (Err).
func (w *File) Close() error { return w.a.Close() }

// Write appends one sample. The first error (a sample the reader would
// refuse, one that does not encode, a write that fails) stops further
// writes and is kept for Err: a samples file missing requests must not
// pass for the run's record.
func (w *File) Write(s *Sample) {
	if err := s.Check(); err != nil {
		w.a.Fail(fmt.Errorf("request %d of run %s (%s) would not read back, so it is not written: %w", s.Seq, s.Run, s.Scenario, err))
		return
	}
	if err := w.a.Append(s); err != nil {
		w.a.Fail(fmt.Errorf("request %d of run %s: %w", s.Seq, s.Run, err))
	}
}

// Err is the file's first error: nil while it holds every sample written.
func (w *File) Err() error { return w.a.Err() }
