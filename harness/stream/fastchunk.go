package stream

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// fastChunk decodes a chunk without reflection, which costs a fifth of
// encoding/json on the stream's hot path. It accepts exactly the inputs
// encoding/json decodes into a chunk and gives the same result (FuzzFastChunk
// checks both); on anything it does not handle — a key with an escape or a
// non-ASCII letter, a value of an unexpected type, a repeated choices or
// usage, malformed JSON — it returns false and the caller uses encoding/json.
// The raw values it keeps (error, tool_calls) point into data.
func fastChunk(data []byte, c *chunk) bool {
	p := jparser{b: data}
	var sawChoices, sawUsage bool
	ok := p.object(func(key []byte) bool {
		switch {
		case fold(key, "id"):
			return p.str(&c.ID)
		case fold(key, "object"):
			return p.str(&c.Object)
		case fold(key, "message"):
			return p.str(&c.Message)
		case fold(key, "error"):
			return p.raw((*[]byte)(&c.Error))
		case fold(key, "usage"):
			if sawUsage {
				return false
			}
			sawUsage = true
			return p.usage(&c.Usage)
		case fold(key, "choices"):
			if sawChoices {
				return false
			}
			sawChoices = true
			return p.choices(&c.Choices)
		}
		return p.skip(0)
	})
	p.space()
	return ok && p.i == len(p.b)
}

func (p *jparser) choices(dst *[]choice) bool {
	if p.null() {
		*dst = nil
		return true
	}
	if !p.consume('[') {
		return false
	}
	out := make([]choice, 0, 1)
	p.space()
	if p.consume(']') {
		*dst = out
		return true
	}
	for {
		var ch choice
		p.space()
		if !p.null() && !p.choice(&ch) {
			return false
		}
		out = append(out, ch)
		p.space()
		if p.consume(']') {
			*dst = out
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}

func (p *jparser) choice(ch *choice) bool {
	sawDelta := false
	return p.object(func(key []byte) bool {
		switch {
		case fold(key, "delta"):
			if sawDelta {
				return false
			}
			sawDelta = true
			if p.null() {
				return true
			}
			return p.object(func(key []byte) bool {
				d := &ch.Delta
				switch {
				case fold(key, "content"):
					return p.str(&d.Content)
				case fold(key, "reasoning_content"):
					return p.str(&d.ReasoningContent)
				case fold(key, "reasoning"):
					return p.str(&d.Reasoning)
				case fold(key, "refusal"):
					return p.str(&d.Refusal)
				case fold(key, "tool_calls"):
					return p.raw((*[]byte)(&d.ToolCalls))
				case fold(key, "function_call"):
					return p.raw((*[]byte)(&d.FunctionCall))
				}
				return p.skip(0)
			})
		case fold(key, "finish_reason"):
			return p.str((*string)(&ch.FinishReason))
		}
		return p.skip(0)
	})
}

// usage hands the usage object, which comes once per stream, to
// encoding/json.
func (p *jparser) usage(dst **openai.Usage) bool {
	if p.null() {
		*dst = nil
		return true
	}
	start := p.i
	if p.i >= len(p.b) || p.b[p.i] != '{' || !p.skip(0) {
		return false
	}
	u := new(openai.Usage)
	if json.Unmarshal(p.b[start:p.i], u) != nil {
		return false
	}
	*dst = u
	return true
}

// jparser is a strict JSON scanner over one line.
type jparser struct {
	b []byte
	i int
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
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return escaped, true
		case c < 0x20:
			return false, false
		case c == '\\':
			escaped = true
			if p.i+1 >= len(p.b) {
				return false, false
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.b) {
					return false, false
				}
				for _, h := range p.b[p.i+2 : p.i+6] {
					if !isHex(h) {
						return false, false
					}
				}
				p.i += 6
			default:
				return false, false
			}
		default:
			p.i++
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
func fold(key []byte, name string) bool {
	return len(key) == len(name) && bytes.EqualFold(key, []byte(name))
}
