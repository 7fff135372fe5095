package stream

// The fast path of the delta's structured values: content as an array of
// parts, and tool-call deltas. Each mirrors the UnmarshalJSON of its type
// in chunk.go; FuzzFastChunk holds them to it.

// content decodes delta.content: null, a string, or parts.
func (p *jparser) content(c *content) bool {
	switch {
	case p.null():
		return true
	case p.i < len(p.b) && p.b[p.i] == '"':
		return p.str(&c.Text)
	}
	var out content
	ok := p.array(func() bool {
		var typ, text, thinking string
		if p.null() {
			return true
		}
		if !p.object(func(key []byte) bool {
			switch {
			case fold(key, "type"):
				return p.str(&typ)
			case fold(key, "text"):
				return p.str(&text)
			case fold(key, "thinking"):
				return p.thinking(&thinking)
			}
			return p.skip(0)
		}) {
			return false
		}
		out.addPart(typ, text, thinking)
		return true
	})
	if ok {
		*c = out
	}
	return ok
}

// thinking decodes a thinking part's "thinking": null, a string, or text
// parts (whose text is joined).
func (p *jparser) thinking(dst *string) bool {
	switch {
	case p.null():
		return true
	case p.i < len(p.b) && p.b[p.i] == '"':
		return p.str(dst)
	}
	var joined string
	ok := p.array(func() bool {
		var typ, text string
		if p.null() {
			return true
		}
		if !p.object(func(key []byte) bool {
			switch {
			case fold(key, "type"):
				return p.str(&typ)
			case fold(key, "text"):
				return p.str(&text)
			}
			return p.skip(0)
		}) {
			return false
		}
		if typ == partText {
			joined += text
		}
		return true
	})
	if ok {
		*dst = joined
	}
	return ok
}

// toolDeltas decodes delta.tool_calls: null, one delta as an object, or
// an array of them (a null element is a zero delta, as encoding/json has
// it).
func (p *jparser) toolDeltas(dst *toolDeltas) bool {
	switch {
	case p.null():
		*dst = nil
		return true
	case p.i < len(p.b) && p.b[p.i] == '{':
		var d toolDelta
		if !p.toolDelta(&d) {
			return false
		}
		*dst = toolDeltas{d}
		return true
	}
	out := make(toolDeltas, 0, 1)
	ok := p.array(func() bool {
		var d toolDelta
		if !p.null() && !p.toolDelta(&d) {
			return false
		}
		out = append(out, d)
		return true
	})
	if ok {
		*dst = out
	}
	return ok
}

func (p *jparser) toolDelta(d *toolDelta) bool {
	sawFunction := false
	return p.object(func(key []byte) bool {
		switch {
		case fold(key, "index"):
			return p.integer(&d.Index)
		case fold(key, "id"):
			return p.str(&d.ID)
		case fold(key, "function"):
			if sawFunction {
				return false
			}
			sawFunction = true
			return p.null() || p.function(&d.Function)
		}
		return p.skip(0)
	})
}

func (p *jparser) function(f *toolFunction) bool {
	return p.object(func(key []byte) bool {
		switch {
		case fold(key, "name"):
			return p.str(&f.Name)
		case fold(key, "arguments"):
			if p.i < len(p.b) && p.b[p.i] == '"' {
				return p.str((*string)(&f.Arguments))
			}
			if p.null() {
				return true
			}
			var raw []byte
			if !p.raw(&raw) {
				return false
			}
			f.Arguments = arguments(raw)
			return true
		}
		return p.skip(0)
	})
}

// array calls elem for each element of an array, with the parser at it.
func (p *jparser) array(elem func() bool) bool {
	if !p.consume('[') {
		return false
	}
	p.space()
	if p.consume(']') {
		return true
	}
	for {
		p.space()
		if !elem() {
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
}
