package stream

import (
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"

	"bytes"
	"context"
	"encoding/json"
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
	usage      bool
	answers    int // answer-bearing chunks (content, refusal, tool call)
	thoughts   int // reasoning chunks that carry no answer
	// usageReasoning is usage.completion_tokens_details.reasoning_tokens.
	usageReasoning int

	// The event being read, as the SSE spec assembles one: its data lines
	// joined with "\n", its type from an "event:" line. It is dispatched at
	// the blank line that ends it.
	data  []byte
	ndata int // data lines so far
	event []byte
}

// chunk is the union of what a chat stream line can carry, errors included
// (OpenAI's {"error":…} in any key order and vLLM's {"object":"error",…}).
// It decodes only what the timing needs: tool and function calls stay raw,
// because only their presence makes a chunk token-bearing.
type chunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Choices []choice        `json:"choices"`
	Usage   *openai.Usage   `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

type choice struct {
	Delta        delta               `json:"delta"`
	FinishReason openai.FinishReason `json:"finish_reason"`
}

type delta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"` // DeepSeek, vLLM
	Reasoning        string          `json:"reasoning"`         // Ollama, vLLM ≥ 0.10
	Refusal          string          `json:"refusal"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
	FunctionCall     json.RawMessage `json:"function_call"`
}

// decodeChunk decodes one data line: the fast path for the usual shapes,
// encoding/json for anything else (and for the error of a malformed line).
func decodeChunk(data []byte, c *chunk) error {
	if fastChunk(data, c) {
		return nil
	}
	*c = chunk{}
	return json.Unmarshal(data, c)
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
			st.err = &sample.RequestError{Kind: sample.KindProtocol, Status: st.s.Status,
				Message: fmt.Sprintf("event data over the length limit (%d data lines, %d bytes)", st.ndata, len(st.data))}
			return true
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
	if string(event) == "error" {
		// Some servers and proxies name the event and put the error, in
		// whatever shape, in its data.
		st.err = &sample.RequestError{Kind: sample.KindMidstream, Status: st.s.Status, Message: errorMessage(data, st.sec, false)}
		return true
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
	var c chunk
	if err := decodeChunk(data, &c); err != nil {
		msg := "undecodable chunk: "
		if lines > 1 {
			msg = fmt.Sprintf("undecodable event (%d data lines, joined with newlines as the SSE spec says): ", lines)
		}
		st.err = &sample.RequestError{Kind: sample.KindProtocol, Status: st.s.Status, Message: msg + st.quote(data, 80), Err: err}
		return true
	}
	if (len(c.Error) > 0 && string(c.Error) != "null") || c.Object == "error" {
		st.err = &sample.RequestError{Kind: sample.KindMidstream, Status: st.s.Status, Message: errorMessage(data, st.sec, false)}
		return true
	}
	if c.ID != "" && st.s.ID == "" {
		st.s.ID = c.ID
	}
	if c.Usage != nil {
		st.usage = true
		st.s.OutputTokens = c.Usage.CompletionTokens
		st.s.PromptTokens = c.Usage.PromptTokens
		if d := c.Usage.CompletionTokensDetails; d != nil {
			st.usageReasoning = d.ReasoningTokens
		}
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		d := &ch.Delta
		answer := d.Content != "" || d.Refusal != "" || present(d.ToolCalls) || present(d.FunctionCall)
		reasoning := d.ReasoningContent != "" || d.Reasoning != ""
		if answer || reasoning {
			st.token(now, answer)
		}
		if reasoning && !answer {
			st.thoughts++
		}
		if reasoning {
			st.s.Reasoning += len(d.ReasoningContent) + len(d.Reasoning)
		}
		if d.Content != "" {
			st.keep(d.Content)
		}
		if ch.FinishReason != "" {
			st.s.Finish = string(ch.FinishReason)
			st.s.Total = now.Sub(st.t0)
		}
	}
	return false
}

// present: a JSON value that is there and not null or empty.
func present(raw json.RawMessage) bool {
	switch string(raw) {
	case "", "null", "[]", "{}":
		return false
	}
	return true
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
	end := time.Since(st.t0)
	finished := st.done || s.Finish != ""
	switch {
	case st.err != nil:
		s.Total = end
		s.Fail(st.err)
		return
	case errors.Is(readErr, errLineTooLong):
		s.Total = end
		s.Fail(&sample.RequestError{Kind: sample.KindProtocol, Status: s.Status, Message: errLineTooLong.Error(), Err: readErr})
		return
	case readErr != nil && readErr != io.EOF && !(s.Finish != "" && errors.Is(readErr, io.ErrUnexpectedEOF)):
		// A cut, reset or timeout: what the network did, wherever in a
		// line it fell.
		s.Total = end
		s.Fail(classify(ctx, parent, readErr))
		return
	case !finished:
		s.Total = end
		msg := "stream ended without [DONE] or finish_reason"
		switch {
		case partial > 0:
			msg = fmt.Sprintf("stream ended inside a line (%d bytes of it) without [DONE] or finish_reason", partial)
		case st.ndata > 0:
			msg = fmt.Sprintf("stream ended inside an event (%d data lines, no blank line after them) without [DONE] or finish_reason", st.ndata)
		}
		s.Fail(&sample.RequestError{Kind: sample.KindTruncated, Status: s.Status, Message: msg})
		return
	}
	if !st.done {
		// EOF after a finish_reason: the end of the stream is the EOF.
		s.Total = end
	}
	if st.answers == 0 {
		s.Fail(st.emptyAnswer())
		return
	}
	st.count()
}

// count fills the token counts. Every output token counts, reasoning
// included (Sample.TPOT spans them from the first token of any kind); of
// them, ReasoningTokens were reasoning: the server's figure when its usage
// gives one, else the reasoning chunks.
func (st *streamState) count() {
	s := st.s
	s.ReasoningTokens = st.thoughts
	if st.usageReasoning > 0 {
		s.ReasoningTokens = st.usageReasoning
	}
	if !st.usage {
		s.OutputTokens = s.Chunks
		s.TokenSource = sample.TokensEstimated
		return
	}
	s.TokenSource = sample.TokensUsage
	if st.thoughts > 0 && s.OutputTokens < s.ReasoningTokens+st.answers {
		// Fewer tokens than the reasoning and answer chunks seen: this
		// server's completion_tokens counts the answer alone. Divided into
		// the time from the first reasoning token, it made tpot several
		// times too high; the reasoning is added, and the sum is ours.
		s.OutputTokens += s.ReasoningTokens
		s.TokenSource = sample.TokensEstimated
	}
	if s.Chunks > s.OutputTokens {
		// More token-bearing chunks than the usage counts: the count is
		// the chunks', and says it is ours.
		s.OutputTokens, s.TokenSource = s.Chunks, sample.TokensEstimated
	}
}
