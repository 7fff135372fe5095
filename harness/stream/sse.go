package stream

import (
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"

	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// streamState is the per-request state of the SSE loop.
type streamState struct {
	s          *sample.Sample
	t0         time.Time
	last       time.Time // last token-bearing chunk
	content    strings.Builder
	maxContent int
	maxData    int // longest event data kept (the client's MaxLine)
	sec        *secret.Set
	done       bool // saw [DONE]
	err        error
	answers    int // answer-bearing chunks (content, refusal, new tool-call bytes)
	thoughts   int // reasoning chunks that carry no answer
	tools      toolAssembler
	api        apiReader // the Responses or Messages reader; nil for chat
	counts     usageCounts
	intern     intern
	chunk      chunk // the chunk being decoded, one for the stream (on the stack it escaped: an allocation a chunk)

	// The event being read, as the SSE spec assembles one: its data lines
	// joined with "\n", its type from an "event:" line. It is dispatched at
	// the blank line that ends it.
	data  []byte
	ndata int // data lines so far
	event []byte
}

func newStreamState(s *sample.Sample, t0 time.Time, maxContent, maxData int, sec *secret.Set) *streamState {
	return &streamState{s: s, t0: t0, maxContent: maxContent, maxData: maxData, sec: sec, tools: newToolAssembler(maxContent)}
}

// line handles one line of the stream as the SSE spec says: "field: value"
// lines build an event, a blank line dispatches it, a line starting with
// ":" is a comment (": ping"). Only the data and event fields matter here;
// id, retry and unknown fields are read and ignored. It returns true when
// the stream is over (data: [DONE] or an error).
func (st *streamState) line(b []byte) bool {
	if len(b) == 0 {
		return st.dispatch()
	}
	if b[0] == ':' {
		return false
	}
	field, value := b, []byte(nil)
	if i := bytes.IndexByte(b, ':'); i >= 0 {
		field, value = b[:i], b[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "data":
		if st.ndata > 0 {
			st.data = append(st.data, '\n')
		}
		st.data = append(st.data, value...)
		st.ndata++
		if len(st.data) > st.maxData {
			return st.fail(sample.KindProtocol, fmt.Sprintf("event data over the length limit (%d data lines, %d bytes)", st.ndata, len(st.data)), nil)
		}
	case "event":
		st.event = append(st.event[:0], value...)
	}
	return false
}

// dispatch handles the event read so far, if it has data, and starts the
// next; it returns true when the stream is over.
func (st *streamState) dispatch() bool {
	data, lines, event := st.data, st.ndata, st.event
	st.data, st.ndata, st.event = st.data[:0], 0, st.event[:0]
	if lines == 0 {
		return false // no data: nothing to dispatch (the spec drops it)
	}
	now := time.Now()
	if st.api != nil {
		return st.api.event(st, event, data, now)
	}
	if string(event) == "error" {
		// Some servers and proxies name the event and put the error, in
		// whatever shape, in its data.
		return st.fail(sample.KindMidstream, errorMessage(data, st.sec, false), nil)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return false
	}
	if data[0] == '[' && string(data) == "[DONE]" {
		st.done = true
		st.s.Total = now.Sub(st.t0)
		return true
	}
	c := &st.chunk
	*c = chunk{}
	if err := decodeChunk(data, c, &st.intern); err != nil {
		msg := "undecodable chunk: "
		if lines > 1 {
			msg = fmt.Sprintf("undecodable event (%d data lines, joined with newlines as the SSE spec says): ", lines)
		}
		return st.fail(sample.KindProtocol, msg+st.quote(data, 80), err)
	}
	switch {
	case isSet(c.Error) || c.Object == "error":
		return st.fail(sample.KindMidstream, errorMessage(data, st.sec, false), nil)
	case c.XGroq != nil && isSet(c.XGroq.Error):
		return st.fail(sample.KindMidstream, "x_groq.error: "+st.quote(c.XGroq.Error, maxMessage), nil)
	}
	st.provenance(c)
	if msg := st.readUsage(c); msg != "" {
		return st.fail(sample.KindProtocol, msg, nil)
	}
	for i := range c.Choices {
		st.choice(&c.Choices[i], now)
	}
	return false
}

// fail ends the stream with an error of kind.
func (st *streamState) fail(kind sample.ErrorKind, msg string, err error) bool {
	st.err = &sample.RequestError{Kind: kind, Status: st.s.Status, Message: msg, Err: err}
	return true
}

// provenance keeps the response's id, model and system fingerprint, the
// first of each a chunk gives, bounded.
func (st *streamState) provenance(c *chunk) {
	s := st.s
	if c.ID != "" && s.ID == "" {
		s.ID = st.sec.Cut(c.ID, maxMeta)
	}
	if c.Model != "" && s.ResponseModel == "" {
		s.ResponseModel = st.sec.Cut(string(c.Model), maxMeta)
	}
	if c.SystemFingerprint != "" && s.SystemFingerprint == "" {
		s.SystemFingerprint = st.sec.Cut(string(c.SystemFingerprint), maxMeta)
	}
}

// choice handles one choice of a chunk read at now.
func (st *streamState) choice(ch *choice, now time.Time) {
	s, d := st.s, &ch.Delta
	tool := (len(d.ToolCalls) > 0 || d.FunctionCall != nil) && st.tools.add(d)
	answer := d.Content.Text != "" || d.Refusal != "" || tool
	reasoning := d.ReasoningContent != "" || d.Reasoning != "" || d.Content.Thinking != ""
	if answer || reasoning {
		st.token(now, answer)
	}
	if tool && s.TTFTool == 0 {
		s.TTFTool = now.Sub(st.t0)
	}
	if reasoning && !answer {
		st.thoughts++
	}
	if reasoning {
		s.Reasoning += len(d.ReasoningContent) + len(d.Reasoning) + len(d.Content.Thinking)
	}
	if d.Content.Text != "" {
		st.keep(d.Content.Text)
	}
	if ch.FinishReason != "" {
		s.Finish = string(ch.FinishReason)
		s.Total = now.Sub(st.t0)
		called := ch.FinishReason == openai.FinishReasonToolCalls || ch.FinishReason == openai.FinishReasonFunctionCall
		if called && len(st.tools.calls) > 0 && s.ToolDone == 0 {
			s.ToolDone = s.Total
		}
	}
}

// token records a token-bearing chunk at now.
func (st *streamState) token(now time.Time, answer bool) {
	s := st.s
	if s.TTFT == 0 {
		s.TTFT = now.Sub(st.t0)
	} else {
		if s.ITL == nil {
			s.ITL = new(sample.Hist)
		}
		s.ITL.Add(now.Sub(st.last))
	}
	if answer {
		if s.TTFA == 0 {
			s.TTFA = now.Sub(st.t0)
		}
		st.answers++
	}
	st.last = now
	s.Chunks++
}

func (st *streamState) keep(text string) {
	room := st.maxContent - st.content.Len()
	if room <= 0 {
		st.s.ContentCut = true
		return
	}
	if len(text) > room {
		text = text[:room]
		st.s.ContentCut = true
	}
	st.content.WriteString(text)
}

// emptyAnswer says how a stream that ended well carried no answer.
func (st *streamState) emptyAnswer() error {
	end := "[DONE]"
	if st.s.Finish != "" {
		end = "finish_reason " + st.quote([]byte(st.s.Finish), 40)
	}
	msg := "no answer token before " + end
	if n := st.s.Chunks; n > 0 {
		msg += fmt.Sprintf(" (%d reasoning chunks only", n)
		if st.s.Finish == "length" {
			msg += ": max_tokens may have gone to reasoning"
		}
		msg += ")"
	}
	return &sample.RequestError{Kind: sample.KindEmptyAnswer, Status: st.s.Status, Message: msg}
}

// quote is whole server text for an error message, redacted and cut.
func (st *streamState) quote(b []byte, n int) string { return quote(st.sec, b, n, false) }

// consume reads the body line by line until the stream is over or the body
// ends or fails, and returns the read error (nil when the stream ended
// itself: [DONE] or an error event).
func (st *streamState) consume(lr *lineReader) error {
	for {
		b, err := lr.next()
		if err != nil {
			return err
		}
		if st.line(b) {
			return nil
		}
	}
}

// finish decides how the stream ended and fills the counts. readErr is
// what consume returned; partial is the number of bytes of an unfinished
// line left when the body ended or failed.
func (st *streamState) finish(ctx, parent context.Context, readErr error, partial int) {
	s := st.s
	s.Content = st.content.String()
	st.tools.into(s)
	s.CachedTokens = st.counts.cached()
	end := time.Since(st.t0)
	if err := st.endError(ctx, parent, readErr, partial); err != nil {
		s.Total = end
		s.Fail(err)
		return
	}
	if !st.done {
		// EOF after a finish_reason: the end of the stream is the EOF.
		s.Total = end
	}
	if len(s.ToolCalls) > 0 && s.ToolDone == 0 {
		s.ToolDone = s.Total // no finish_reason tool_calls: the end completes them
	}
	if s.Finish == string(openai.FinishReasonContentFilter) {
		st.count()
		s.Fail(&sample.RequestError{Kind: sample.KindContentFilter, Status: s.Status,
			Message: fmt.Sprintf("finish_reason content_filter: the server's filter ended the answer after %d answer chunks", st.answers)})
		return
	}
	if st.answers == 0 {
		s.Fail(st.emptyAnswer())
		return
	}
	st.count()
}

// endError is the failure of a stream that did not end well: an error
// event or chunk, a line too long, the network's doing, or an end before
// [DONE] or a finish_reason; nil when it ended well.
func (st *streamState) endError(ctx, parent context.Context, readErr error, partial int) error {
	s := st.s
	switch {
	case st.err != nil:
		return st.err
	case errors.Is(readErr, errLineTooLong):
		return &sample.RequestError{Kind: sample.KindProtocol, Status: s.Status, Message: errLineTooLong.Error(), Err: readErr}
	case readErr != nil && readErr != io.EOF && !(s.Finish != "" && errors.Is(readErr, io.ErrUnexpectedEOF)):
		// A cut, reset or timeout: what the network did, wherever in a
		// line it fell.
		return classify(ctx, parent, readErr)
	case st.done || s.Finish != "":
		return nil
	}
	msg := "stream ended without [DONE] or finish_reason"
	switch {
	case partial > 0:
		msg = fmt.Sprintf("stream ended inside a line (%d bytes of it) without [DONE] or finish_reason", partial)
	case st.ndata > 0:
		msg = fmt.Sprintf("stream ended inside an event (%d data lines, no blank line after them) without [DONE] or finish_reason", st.ndata)
	}
	return &sample.RequestError{Kind: sample.KindTruncated, Status: s.Status, Message: msg}
}
