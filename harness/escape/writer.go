package escape

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Writer escapes a stream for a terminal as Text does, but for newline and
// tab, which a command's output is made of: wrapped around a command's
// stdout and stderr, no control sequence that reached a printed line —
// through a field that was not escaped — acts on the terminal. A rune
// split across writes is held back until it is whole; Close writes what
// is left (a rune cut short, as \x escapes). It is safe for concurrent use.
//
// Newlines pass: a newline inside a field (an error message that forges a
// line) is for the escaping of each field, Text.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte // the start of a rune not yet whole
	err  error
}

// NewWriter returns a Writer escaping what goes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (x *Writer) Write(p []byte) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return 0, x.err
	}
	b := p
	if len(x.held) > 0 {
		b = append(x.held, p...)
		x.held = nil
	}
	// Hold back the start of a rune the next write completes.
	if k := partialRune(b); k > 0 {
		x.held = append([]byte(nil), b[len(b)-k:]...)
		b = b[:len(b)-k]
	}
	if clean(string(b)) || !hasHostile(b) {
		_, x.err = x.w.Write(b)
	} else {
		var s strings.Builder
		writeEscaped(&s, string(b), "\n\t")
		_, x.err = io.WriteString(x.w, s.String())
	}
	return len(p), x.err
}

// hasHostile reports whether b holds a rune the writer escapes.
func hasHostile(b []byte) bool {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || hostile(r) && r != '\n' && r != '\t' {
			return true
		}
		i += n
	}
	return false
}

// partialRune is the length of the start of a multi-byte rune that ends b
// unfinished, 0 when b ends whole.
func partialRune(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0 // ASCII: whole
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// Close writes a rune left unfinished, as escapes of its bytes.
func (x *Writer) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.held) > 0 && x.err == nil {
		var s strings.Builder
		writeEscaped(&s, string(x.held), "")
		_, x.err = io.WriteString(x.w, s.String())
	}
	x.held = nil
	return x.err
}
