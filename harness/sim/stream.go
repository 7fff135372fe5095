package sim

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// fewTokens is how many tokens the mid-stream faults let through first, so
// that a client has a TTFT to measure before the failure.
const fewTokens = 3

// stream answers with an event stream, playing out the mid-stream faults.
func (c *call) stream() {
	c.begin("text/event-stream")
	c.pings = true
	if c.wire == nil && (c.cfg.RoleChunk || c.tr.Fault == FaultEmptyAnswer) {
		c.chunk(`"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`)
	}
	if c.wire == nil && c.cfg.EmptyContent {
		c.chunk(`"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}`)
	}
	if !c.start() {
		return
	}
	if c.wire != nil {
		c.wire.open(c)
	}
	switch c.tr.Fault {
	case FaultProtocolLongLine:
		c.longLine()
		return
	case FaultFlood:
		c.flood()
		return
	case FaultEmptyAnswer:
		// The server thinks as long as for any answer, then has none.
		if !c.sleepUntil(c.next) {
			return
		}
	}
	c.sent = make([]string, 0, len(c.answer))
	limit := -1
	if cutShort(c.tr.Fault) {
		limit = fewTokens
	}
	if !c.tokens(limit) {
		return
	}
	if c.wire != nil && isMidstreamError(c.tr.Fault) {
		c.wire.fail(c)
		return
	}
	switch c.tr.Fault {
	case FaultTimeoutIdle:
		c.sleepUntil(time.Now().Add(holdStall))
	case FaultTimeoutTotal:
		c.forever()
	case FaultProtocolBadChunk:
		c.raw("data: {not json" + c.nl + c.nl)
	case FaultMidstreamError:
		c.raw(`data: {"error":{"message":"overloaded","type":"server_error","param":null,"code":null}}` + c.nl + c.nl)
	case FaultMidstreamErrorSpaced:
		c.raw(`data: { "error": { "message": "overloaded", "type": "server_error" } }` + c.nl + c.nl)
	case FaultMidstreamErrorVLLM:
		c.raw(`data: {"object":"error","message":"overloaded","type":"InternalServerError","param":null,"code":500}` + c.nl + c.nl)
	case FaultMidstreamErrorEvent:
		c.raw("event: error" + c.nl +
			`data: {"error":{"message":"overloaded","type":"server_error","param":null,"code":null}}` + c.nl + c.nl)
	case FaultTruncatedMidline, FaultResetMidline, FaultStallMidline, FaultAbortMidline:
		c.midline()
	case FaultTruncated:
		// Returning ends the chunked body properly: the client reads a
		// clean EOF with no finish_reason and no [DONE].
	case FaultTruncatedAbort:
		c.abort()
	default:
		c.end()
	}
}

// chunk sends one event whose JSON is c.base followed by rest.
func (c *call) chunk(rest string) time.Time {
	c.buf = append(c.buf[:0], "data: "...)
	c.buf = append(c.buf, c.base...)
	c.buf = append(c.buf, rest...)
	c.buf = append(c.buf, c.nl+c.nl...)
	return c.flushBuf()
}

// appendToken appends one token-bearing chunk event to c.buf.
func (c *call) appendToken(text string, reasoning bool) {
	c.buf = append(c.buf, "data: "...)
	c.buf = append(c.buf, c.base...)
	if reasoning {
		c.buf = append(c.buf, `"choices":[{"index":0,"delta":{"reasoning_content":`...)
	} else {
		c.buf = append(c.buf, `"choices":[{"index":0,"delta":{"content":`...)
	}
	c.buf = appendJSONString(c.buf, text)
	c.buf = append(c.buf, `},"finish_reason":null}]}`...)
	c.buf = append(c.buf, c.nl+c.nl...)
}

// token sends one token-bearing chunk and counts it.
func (c *call) token(text string, reasoning bool) {
	c.buf = c.buf[:0]
	if c.wire != nil {
		c.wire.token(c, text, reasoning)
	} else {
		c.appendToken(text, reasoning)
	}
	ready := time.Now()
	now := c.flushBuf()
	if c.failed {
		return
	}
	c.tr.OutputTokens++
	if c.tr.FirstToken.IsZero() {
		c.tr.FirstToken, c.tr.FirstReady = now, ready
	}
	if reasoning {
		c.tr.ReasoningTokens++
	} else {
		c.sent = append(c.sent, text)
		if c.tr.FirstAnswer.IsZero() {
			c.tr.FirstAnswer = now
		}
	}
}

// tokens sends the planned reasoning and answer tokens on schedule, at most
// limit of them (limit < 0: all). It reports whether the client is still there.
func (c *call) tokens(limit int) bool {
	n := 0
	for _, part := range [2][]string{c.reasoning, c.answer} {
		reasoning := n < len(c.reasoning)
		for _, tok := range part {
			if n == limit {
				return true
			}
			c.schedule(1)
			if !c.sleepUntil(c.next) {
				return false
			}
			c.token(tok, reasoning)
			n++
		}
	}
	if c.tools == nil {
		return !c.failed
	}
	for _, ch := range c.tools.chunks {
		if n == limit {
			return true
		}
		c.schedule(len(ch.toks))
		if !c.sleepUntil(c.next) {
			return false
		}
		c.sendTool(ch)
		n++
	}
	return !c.failed
}

// schedule gives k more tokens their due times: the first token of a
// response is due when start said, each one after it a TPOT later.
func (c *call) schedule(k int) {
	for range k {
		if c.scheduled > 0 {
			c.tokenDue()
		}
		c.scheduled++
	}
}

// end sends the normal termination: finish_reason, usage, [DONE].
func (c *call) end() {
	if c.wire != nil {
		c.wire.end(c)
		return
	}
	c.tr.Finish = c.finish
	if c.tools == nil {
		c.chunk(`"choices":[{"index":0,"delta":{},"finish_reason":"` + c.finish + `"}]}`)
	} else if at := c.chunk(`"choices":[{"index":0,"delta":` + c.tools.finishDelta + `,"finish_reason":"` + c.finish + `"}]}`); !c.failed {
		c.tr.ToolDone = at
	}
	if so := c.req.StreamOptions; so != nil && so.IncludeUsage && !c.cfg.NoUsage {
		c.chunk(`"choices":[],"usage":` + string(mustJSON(c.usage())) + `}`)
	}
	if !c.cfg.NoDone {
		c.raw("data: [DONE]" + c.nl + c.nl)
	}
}

// How long the stalling faults hold on when the client does not give up.
// They are bounds, not behaviour: a client under test always leaves first.
const (
	holdHeaders = 30 * time.Second
	holdStall   = 5 * time.Minute
)

// forever streams content steadily, never idle for more than TPOT, so only
// a client's total timeout can end it.
func (c *call) forever() {
	every := max(c.cfg.TPOT, time.Millisecond)
	stop := time.Now().Add(holdStall)
	for k := 0; ; k++ {
		if c.next = c.next.Add(every); c.next.Before(time.Now()) {
			c.next = time.Now() // late: carry on steadily rather than burst
		}
		if c.next.After(stop) || !c.sleepUntil(c.next) {
			return
		}
		c.token(lorem[k%len(lorem)], false)
	}
}

// longLine starts a 2 MiB data line and never ends it, to find clients
// whose line reader grows without bound or gives up with a clear error.
func (c *call) longLine() {
	c.raw("data: ")
	piece := strings.Repeat("x", 64<<10)
	for i := 0; i < 32 && !c.failed && c.ctx.Err() == nil; i++ {
		c.raw(piece)
	}
	c.sleepUntil(time.Now().Add(holdStall))
}

// complete answers with one chat.completion JSON once the whole answer
// would have been generated.
func (c *call) complete() {
	if !c.start() {
		return
	}
	c.schedule(c.planned())
	if !c.sleepUntil(c.next) {
		return
	}
	plainFault := isStreamFault(c.tr.Fault)
	if !plainFault {
		c.tr.OutputTokens = c.planned()
		c.tr.ReasoningTokens = len(c.reasoning)
		c.tr.Finish = c.finish
		c.sent = c.answer
	}
	msg := c.message()
	body := mustJSON(map[string]any{
		"id": c.tr.ID, "object": "chat.completion", "created": c.tr.Received.Unix(),
		"model": c.tr.Served, "usage": c.usage(),
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": c.finish}},
	})
	if c.tr.Fault != FaultFlood {
		c.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	c.begin("application/json")
	if plainFault {
		c.streamFaultPlain(body)
		return
	}
	c.buf = append(c.buf[:0], body...)
	ready := time.Now()
	now := c.flushBuf()
	// The whole answer arrives at once; an empty one has no first token.
	if c.tr.OutputTokens > 0 {
		c.tr.FirstToken, c.tr.FirstReady = now, ready
	}
	if len(c.answer) > 0 || (c.tools != nil && c.tools.tokens > 0) {
		c.tr.FirstAnswer = now
	}
	if c.tools != nil && c.tools.tokens > 0 {
		c.toolSent, c.tr.FirstTool, c.tr.ToolDone = c.tools.tokens, now, now
	}
}

// message is a whole answer's message: content, or OpenAI's tool_calls
// with content null; reasoning_content beside either.
func (c *call) message() map[string]any {
	msg := map[string]any{"role": "assistant", "content": strings.Join(c.answer, "")}
	if c.tools != nil {
		calls := []map[string]any{}
		for _, tc := range c.tools.callsOf(c.tools.tokens) {
			calls = append(calls, map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]string{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["content"], msg["tool_calls"] = nil, calls
	}
	if len(c.reasoning) > 0 {
		msg["reasoning_content"] = strings.Join(c.reasoning, "")
	}
	return msg
}

// streamFaultPlain plays a mid-stream fault on a non-stream response: the
// stalls send headers and then nothing, flood sends an answer that never
// ends; the others send half the body and then break off as their stream
// form does.
func (c *call) streamFaultPlain(body []byte) {
	switch c.tr.Fault {
	case FaultTimeoutIdle, FaultTimeoutTotal, FaultProtocolLongLine:
		c.sleepUntil(time.Now().Add(holdStall))
		return
	case FaultFlood:
		c.floodPlain(body)
		return
	}
	c.buf = append(c.buf[:0], body[:len(body)/2]...)
	c.flushBuf()
	// Content-Length promised more, so net/http closes the connection and
	// the client reads an unexpected EOF: a truncated body either way.
	switch c.tr.Fault {
	case FaultTruncatedAbort, FaultAbortMidline:
		c.abort()
	case FaultResetMidline:
		c.reset()
	case FaultStallMidline:
		c.sleepUntil(time.Now().Add(holdStall))
	}
}

// cutShort says whether kind lets fewTokens through and then breaks the
// stream.
func cutShort(kind string) bool {
	switch kind {
	case FaultTimeoutIdle, FaultTimeoutTotal, FaultProtocolBadChunk,
		FaultMidstreamError, FaultMidstreamErrorSpaced, FaultMidstreamErrorVLLM, FaultMidstreamErrorEvent,
		FaultTruncated, FaultTruncatedAbort,
		FaultTruncatedMidline, FaultResetMidline, FaultStallMidline, FaultAbortMidline:
		return true
	}
	return false
}

// isStreamFault says whether kind needs a response under way to happen.
func isStreamFault(kind string) bool {
	return cutShort(kind) || kind == FaultProtocolLongLine || kind == FaultFlood
}

var _ http.Handler = (*Server)(nil)
