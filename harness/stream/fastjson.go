package stream

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// jparser is a strict JSON scanner over one event's data.
type jparser struct {
	b  []byte
	i  int
	in *intern // may be nil
}

// intern keeps the last value of the fields every chunk of a stream
// repeats (id, object, model, system_fingerprint), so that a chunk that
// repeats one reuses the string instead of allocating it again, and the
// choices array of the last chunk, whose room the next one reuses (a
// chunk's choices are read before the next is decoded): allocations that
// were two thirds of the plain content path's.
type intern struct {
	id, object, model, fingerprint string
	choices                        []choice
}

const maxDepth = 64

func (p *jparser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) consume(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jparser) null() bool {
	if bytes.HasPrefix(p.b[p.i:], []byte("null")) {
		p.i += 4
		return true
	}
	return false
}

// object calls field for each key, with the parser at the key's value. Keys
// with escapes or non-ASCII bytes are not handled (encoding/json unescapes and
// folds them).
func (p *jparser) object(field func(key []byte) bool) bool {
	p.space()
	if !p.consume('{') {
		return false
	}
	p.space()
	if p.consume('}') {
		return true
	}
	for {
		p.space()
		start := p.i + 1
		raw, ok := p.string()
		if !ok || raw {
			return false
		}
		key := p.b[start : p.i-1]
		for _, k := range key {
			if k >= utf8.RuneSelf {
				return false
			}
		}
		p.space()
		if !p.consume(':') {
			return false
		}
		p.space()
		if !field(key) {
			return false
		}
		p.space()
		if p.consume('}') {
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}

// string scans a string at p.i; escaped reports whether it holds an escape.
func (p *jparser) string() (escaped bool, ok bool) {
	if !p.consume('"') {
		return false, false
	}
	// The index is kept in a local in the loop, which runs over every
	// byte of the stream's text: a fifth of the plain path's cost.
	b, i := p.b, p.i
	for i < len(b) {
		c := b[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		switch {
		case c == '"':
			p.i = i + 1
			return escaped, true
		case c < 0x20:
			return false, false
		}
		escaped = true
		if i+1 >= len(b) {
			return false, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(b) {
				return false, false
			}
			for _, h := range b[i+2 : i+6] {
				if !isHex(h) {
					return false, false
				}
			}
			i += 6
		default:
			return false, false
		}
	}
	return false, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// str decodes a string (or null, which leaves dst as it was, as
// encoding/json does). Escapes and invalid UTF-8 go to encoding/json.
func (p *jparser) str(dst *string) bool {
	if p.null() {
		return true
	}
	start := p.i
	escaped, ok := p.string()
	if !ok {
		return false
	}
	body := p.b[start+1 : p.i-1]
	if !escaped && utf8.Valid(body) {
		*dst = string(body)
		return true
	}
	return json.Unmarshal(p.b[start:p.i], dst) == nil
}

// strAs is str, reusing *last when the value equals it, and keeping the
// value there for the next chunk.
func (p *jparser) strAs(dst, last *string) bool {
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '"' {
		escaped, ok := p.string()
		if !ok {
			return false
		}
		body := p.b[start+1 : p.i-1]
		if !escaped && string(body) == *last {
			*dst = *last
			return true
		}
		p.i = start
	}
	if !p.str(dst) {
		return false
	}
	*last = *dst
	return true
}

// integer decodes an integer into a pointer as encoding/json decodes a
// number into *int: null sets it to nil. A fraction, an exponent or more
// than 18 digits go to encoding/json (which errs on the first two).
func (p *jparser) integer(dst **int) bool {
	if p.null() {
		*dst = nil
		return true
	}
	v, ok := p.whole()
	if !ok {
		return false
	}
	*dst = &v
	return true
}

// integerIn is integer, decoding into room rather than a new int.
func (p *jparser) integerIn(dst **int, room *int) bool {
	if p.null() {
		*dst = nil
		return true
	}
	v, ok := p.whole()
	if !ok {
		return false
	}
	*room = v
	*dst = room
	return true
}

// whole scans a number that is a whole one of at most 18 digits.
func (p *jparser) whole() (int, bool) {
	start := p.i
	if !p.number() {
		return 0, false
	}
	digits, neg := p.b[start:p.i], false
	if digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	if len(digits) > 18 {
		return 0, false
	}
	v := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = 10*v + int(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// sub decodes an object with encoding/json, for the parts of a chunk that
// come once a stream (usage, x_groq, timings); null sets *dst to nil.
func sub[T any](p *jparser, dst **T) bool {
	if p.null() {
		*dst = nil
		return true
	}
	start := p.i
	if p.i >= len(p.b) || p.b[p.i] != '{' || !p.skip(0) {
		return false
	}
	v := new(T)
	if json.Unmarshal(p.b[start:p.i], v) != nil {
		return false
	}
	*dst = v
	return true
}

// raw keeps the value's bytes, as json.RawMessage does.
func (p *jparser) raw(dst *[]byte) bool {
	start := p.i
	if !p.skip(0) {
		return false
	}
	*dst = p.b[start:p.i]
	return true
}

// skip scans one value of any type, strictly.
func (p *jparser) skip(depth int) bool {
	if depth > maxDepth || p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, ok := p.string()
		return ok
	case c == '{':
		return p.object(func([]byte) bool { return p.skip(depth + 1) })
	case c == '[':
		p.i++
		p.space()
		if p.consume(']') {
			return true
		}
		for {
			p.space()
			if !p.skip(depth + 1) {
				return false
			}
			p.space()
			if p.consume(']') {
				return true
			}
			if !p.consume(',') {
				return false
			}
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	default:
		return p.number()
	}
}

func (p *jparser) literal(s string) bool {
	if bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		p.i += len(s)
		return true
	}
	return false
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jparser) number() bool {
	p.consume('-')
	digits := func() int {
		n := 0
		for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.consume('0') {
		// no leading zeros
	} else if digits() == 0 {
		return false
	}
	if p.consume('.') && digits() == 0 {
		return false
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if !p.consume('+') {
			p.consume('-')
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// fold matches an ASCII key case-insensitively, as encoding/json does.
// Every name starts with a lower-case letter, which its first byte is
// checked against first: most keys differ there, and the same key as
// the name, the usual case, needs no folding.
func fold(key []byte, name string) bool {
	if len(key) != len(name) || key[0]|0x20 != name[0] {
		return false
	}
	return string(key) == name || bytes.EqualFold(key, []byte(name))
}
