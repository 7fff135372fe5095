// Package jsonl appends JSON lines to a file: the one writer of every
// JSONL file llmsla writes (samples, the servers' readings, progress, the
// judge's cache, the plan of a test binary). Each line goes out in one
// write on an O_APPEND file, so an interrupted run leaves every line but
// perhaps the last whole (which the readers report as cut), and a
// process appending beside another never interleaves within a line.
//
// It is a leaf: it imports nothing of the module, so the data package
// (harness/sample) may use it.
package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Appender appends lines to one file. Its methods are safe for concurrent
// use. The first error is kept (Err) and stops further writes: a file
// missing lines must not pass for a whole record.
type Appender struct {
	mu     sync.Mutex
	f      *os.File
	what   string // "samples file", "server file", … for errors
	path   string
	filter func([]byte) []byte
	err    error
}

// Create opens path for appending, creating it if needed. what names the
// file in errors; filter, when not nil, rewrites each line before it is
// written (the secrets redactor).
func Create(path, what string, filter func([]byte) []byte) (*Appender, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Appender{f: f, what: what, path: path, filter: filter}, nil
}

// Path is the file's path.
func (a *Appender) Path() string { return a.path }

// Append writes v as one line. A value that does not encode is an error
// of the file, as a failed write is.
func (a *Appender) Append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return a.Fail(fmt.Errorf("a line does not encode: %w", err))
	}
	return a.Line(b)
}

// Line writes b, one JSON value, as one line.
func (a *Appender) Line(b []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil || a.err != nil {
		return a.err
	}
	if a.filter != nil {
		b = a.filter(b)
	}
	if _, err := a.f.Write(append(b, '\n')); err != nil {
		a.err = fmt.Errorf("writing %s %s: %w", a.what, a.path, err)
	}
	return a.err
}

// Fail records err as the file's error (the first one kept) and returns
// the file's error: what the writer found it must not write.
func (a *Appender) Fail(err error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil {
		a.err = fmt.Errorf("%s %s: %w", a.what, a.path, err)
	}
	return a.err
}

// Err is the file's first error: nil while it holds every line written.
func (a *Appender) Err() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Close closes the file; its error is the file's first (Err).
func (a *Appender) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f != nil {
		if err := a.f.Close(); err != nil && a.err == nil {
			a.err = fmt.Errorf("closing %s %s: %w", a.what, a.path, err)
		}
		a.f = nil
	}
	return a.err
}

// RepeatedKey is the first key the JSON object b gives twice at its top
// level, "" when none (or b is no object: the caller's decoder says what
// is wrong). encoding/json keeps the last of them and another reader the
// first, so a line holding one means two things: its readers refuse it.
func RepeatedKey(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return ""
		}
		if seen[k] {
			return k
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}
