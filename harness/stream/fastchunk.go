package stream

// fastChunk decodes a chunk without reflection, which costs a fifth of
// encoding/json on the stream's hot path. It accepts exactly the inputs
// encoding/json decodes into a chunk and gives the same result (FuzzFastChunk
// checks both); on anything it does not handle — a key with an escape or a
// non-ASCII letter, a value of an unexpected type, a repeated key whose
// value encoding/json would merge, malformed JSON — it returns false and
// the caller uses encoding/json. The raw values it keeps (error) point
// into data. in, when not nil, lends the strings of the stream's last
// chunk (see intern).
func fastChunk(data []byte, c *chunk, in *intern) bool {
	if in == nil {
		in = new(intern)
	}
	p := jparser{b: data, in: in}
	var sawChoices, sawUsage, sawGroq, sawTimings bool
	once := func(saw *bool) bool {
		if *saw {
			return false
		}
		*saw = true
		return true
	}
	ok := p.object(func(key []byte) bool {
		switch {
		case fold(key, "id"):
			return p.strAs(&c.ID, &in.id)
		case fold(key, "object"):
			return p.strAs(&c.Object, &in.object)
		case fold(key, "model"):
			return p.looseStr(&c.Model, &in.model)
		case fold(key, "system_fingerprint"):
			return p.looseStr(&c.SystemFingerprint, &in.fingerprint)
		case fold(key, "message"):
			return p.str(&c.Message)
		case fold(key, "error"):
			return p.raw((*[]byte)(&c.Error))
		case fold(key, "usage"):
			return once(&sawUsage) && sub(&p, &c.Usage)
		case fold(key, "x_groq"):
			return once(&sawGroq) && sub(&p, &c.XGroq)
		case fold(key, "timings"):
			return once(&sawTimings) && sub(&p, &c.Timings)
		case fold(key, "choices"):
			return once(&sawChoices) && p.choices(&c.Choices, in)
		}
		return p.skip(0)
	})
	p.space()
	return ok && p.i == len(p.b)
}

// looseStr is a looseString: a string kept (interned in last), any other
// value skipped.
func (p *jparser) looseStr(dst *looseString, last *string) bool {
	if p.i < len(p.b) && p.b[p.i] == '"' {
		return p.strAs((*string)(dst), last)
	}
	return p.skip(0)
}

// choices decodes the choices into the room in keeps for them.
func (p *jparser) choices(dst *[]choice, in *intern) bool {
	if p.null() {
		*dst = nil
		return true
	}
	if in.choices == nil {
		in.choices = make([]choice, 0, 1) // never nil: [] is an empty array, as encoding/json has it
	}
	out := in.choices[:0]
	ok := p.array(func() bool {
		// Decoded in place: a choice on the stack escaped to the heap,
		// one allocation a chunk.
		out = append(out, choice{})
		return p.null() || p.choice(&out[len(out)-1])
	})
	in.choices = out
	if ok {
		*dst = out
	}
	return ok
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
			return p.delta(&ch.Delta)
		case fold(key, "finish_reason"):
			return p.str((*string)(&ch.FinishReason))
		}
		return p.skip(0)
	})
}

func (p *jparser) delta(d *delta) bool {
	var sawContent, sawTools, sawFunction bool
	return p.object(func(key []byte) bool {
		switch {
		case fold(key, "content"):
			if sawContent {
				return false
			}
			sawContent = true
			return p.content(&d.Content)
		case fold(key, "reasoning_content"):
			return p.str(&d.ReasoningContent)
		case fold(key, "reasoning"):
			return p.str(&d.Reasoning)
		case fold(key, "refusal"):
			return p.str(&d.Refusal)
		case fold(key, "tool_calls"):
			if sawTools {
				return false
			}
			sawTools = true
			return p.toolDeltas(&d.ToolCalls)
		case fold(key, "function_call"):
			if sawFunction {
				return false
			}
			sawFunction = true
			if p.null() {
				d.FunctionCall = nil
				return true
			}
			d.FunctionCall = new(toolFunction)
			return p.function(d.FunctionCall)
		}
		return p.skip(0)
	})
}
