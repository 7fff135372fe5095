package stream

// The Responses and Messages events decoded without reflection, as
// fastChunk decodes chat's chunks: encoding/json was five to seven times
// chat's per-chunk cost there (BenchmarkAPIEvent), most of it reflection
// and the allocations of the event's type, index and delta. The decoders
// accept exactly what encoding/json decodes into the event and give the
// same result (FuzzFastResponsesEvent, FuzzFastMessagesEvent); on anything
// else — a key with an escape or a non-ASCII letter, a value of another
// type, a repeated object encoding/json would merge, malformed JSON — they
// return false and the reader uses encoding/json. The parts that come once
// a stream (a response, an item, a message, usage) go to encoding/json
// (sub) from within.

// The event types a stream repeats, kept as these strings rather than
// allocated anew for each event.
var (
	responsesTypes = []string{
		"response.output_text.delta", "response.reasoning_summary_text.delta", "response.reasoning_text.delta",
		"response.function_call_arguments.delta", "response.refusal.delta",
		"response.created", "response.in_progress", "response.completed",
		"response.output_item.added", "response.output_item.done",
		"response.content_part.added", "response.content_part.done", "response.output_text.done",
	}
	messagesTypes = []string{
		"content_block_delta", "content_block_start", "content_block_stop",
		"message_start", "message_delta", "message_stop", "ping",
	}
	messagesDeltaTypes = []string{"text_delta", "thinking_delta", "signature_delta", "input_json_delta"}
)

// fastResponsesEvent decodes a Responses event into e, its output_index
// into room (the event is read before the next one is decoded).
func fastResponsesEvent(data []byte, e *responsesEvent, room *int) bool {
	p := jparser{b: data}
	var sawItem, sawResponse bool
	var code string
	ok := p.object(func(key []byte) bool {
		switch {
		case fold(key, "type"):
			return p.known(&e.Type, responsesTypes)
		case fold(key, "delta"):
			return p.str(&e.Delta)
		case fold(key, "output_index"):
			return p.integerIn(&e.OutputIndex, room)
		case fold(key, "item"):
			return once(&sawItem) && sub(&p, &e.Item)
		case fold(key, "response"):
			return once(&sawResponse) && sub(&p, &e.Response)
		case fold(key, "code"):
			return p.looseStr(&e.Code, &code)
		case fold(key, "message"):
			return p.str(&e.Message)
		}
		return p.skip(0)
	})
	p.space()
	return ok && p.i == len(p.b)
}

// messagesRoom is where a Messages event's index and delta are decoded,
// reused event after event.
type messagesRoom struct {
	index int
	delta messagesDelta
}

// fastMessagesEvent decodes a Messages event into e, its index and delta
// into room.
func fastMessagesEvent(data []byte, e *messagesEvent, room *messagesRoom) bool {
	p := jparser{b: data}
	var sawMessage, sawBlock, sawDelta, sawUsage, sawError bool
	ok := p.object(func(key []byte) bool {
		switch {
		case fold(key, "type"):
			return p.known(&e.Type, messagesTypes)
		case fold(key, "index"):
			return p.integerIn(&e.Index, &room.index)
		case fold(key, "delta"):
			if !once(&sawDelta) {
				return false
			}
			if p.null() {
				e.Delta = nil
				return true
			}
			room.delta = messagesDelta{}
			e.Delta = &room.delta
			return p.messagesDelta(e.Delta)
		case fold(key, "message"):
			return once(&sawMessage) && sub(&p, &e.Message)
		case fold(key, "content_block"):
			return once(&sawBlock) && sub(&p, &e.ContentBlock)
		case fold(key, "usage"):
			return once(&sawUsage) && sub(&p, &e.Usage)
		case fold(key, "error"):
			return once(&sawError) && sub(&p, &e.Error)
		}
		return p.skip(0)
	})
	p.space()
	return ok && p.i == len(p.b)
}

func (p *jparser) messagesDelta(d *messagesDelta) bool {
	return p.object(func(key []byte) bool {
		switch {
		case fold(key, "type"):
			return p.known(&d.Type, messagesDeltaTypes)
		case fold(key, "text"):
			return p.str(&d.Text)
		case fold(key, "thinking"):
			return p.str(&d.Thinking)
		case fold(key, "partial_json"):
			return p.str(&d.PartialJSON)
		case fold(key, "stop_reason"):
			return p.str(&d.StopReason)
		}
		return p.skip(0)
	})
}

// once marks a key seen, false the second time: encoding/json decodes a
// repeated object into the first one's, merging them, which sub does not.
func once(saw *bool) bool {
	if *saw {
		return false
	}
	*saw = true
	return true
}

// known is str, setting one of names rather than a new string when the
// value is that name as it is written (no escape).
func (p *jparser) known(dst *string, names []string) bool {
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '"' {
		escaped, ok := p.string()
		if !ok {
			return false
		}
		if !escaped {
			body := p.b[start+1 : p.i-1]
			for _, n := range names {
				if string(body) == n {
					*dst = n
					return true
				}
			}
		}
		p.i = start
	}
	return p.str(dst)
}
