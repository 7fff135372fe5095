package secret

import (
	"bytes"
	"io"
	"sync"
)

// Writer redacts a stream written through it, a line at a time: a line
// goes out when its end is written, so a secret split across writes is
// whole when redacted. A line longer than 64 KiB goes out in parts, each
// holding back the end that could be the start of a secret. Close writes
// what is left. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	s   *Set
	buf []byte
	err error
}

// NewWriter returns a Writer redacting s from what goes to w.
func NewWriter(w io.Writer, s *Set) *Writer { return &Writer{w: w, s: s} }

const maxHeld = 64 << 10

func (x *Writer) Write(p []byte) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return 0, x.err
	}
	if x.s.Empty() {
		_, x.err = x.w.Write(p)
		return len(p), x.err
	}
	held := len(x.buf)
	x.buf = append(x.buf, p...)
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		i += held
		x.emit(x.buf[:i+1])
		x.buf = append(x.buf[:0], x.buf[i+1:]...)
	}
	if len(x.buf) > maxHeld {
		// A secret not yet whole starts in the last longest−1 bytes
		// (longest counts its \u-escaped forms).
		r := x.s.RedactBytes(x.buf)
		keep := min(x.s.longest()-1, len(r))
		x.emit(r[:len(r)-keep])
		x.buf = append(x.buf[:0], r[len(r)-keep:]...)
	}
	return len(p), x.err
}

func (x *Writer) emit(b []byte) {
	if x.err == nil {
		_, x.err = x.w.Write(x.s.RedactBytes(b))
	}
}

// Close writes the unfinished last line, redacted, and what is left of a
// secret at its end dropped: output that stops there was cut.
func (x *Writer) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.buf) > 0 {
		rest := x.s.TrimPartial(x.s.Redact(string(x.buf)))
		x.buf = x.buf[:0]
		if x.err == nil {
			_, x.err = io.WriteString(x.w, rest)
		}
	}
	return x.err
}
