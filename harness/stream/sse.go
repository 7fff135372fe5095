package stream

import (
	"github.com/llmsla/llmsla/harness/sample"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	done       bool // saw [DONE]
	err        error
	usage      bool
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

var dataPrefix = []byte("data:")

// line handles one line of the stream; it returns true when the stream is
// over (data: [DONE] or an error event).
func (st *streamState) line(b []byte) bool {
	if !bytes.HasPrefix(b, dataPrefix) {
		// Blank lines, comments (": ping"), event:, id:, retry: carry no data.
		return false
	}
	now := time.Now()
	data := bytes.TrimSpace(b[len(dataPrefix):])
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
		st.err = &sample.RequestError{Kind: sample.KindProtocol, Status: st.s.Status,
			Message: "undecodable chunk: " + truncate(string(data), 80), Err: err}
		return true
	}
	if (len(c.Error) > 0 && string(c.Error) != "null") || c.Object == "error" {
		st.err = &sample.RequestError{Kind: sample.KindMidstream, Status: st.s.Status, Message: errorMessage(data)}
		return true
	}
	if c.ID != "" && st.s.ID == "" {
		st.s.ID = c.ID
	}
	if c.Usage != nil {
		st.usage = true
		st.s.OutputTokens = c.Usage.CompletionTokens
		st.s.PromptTokens = c.Usage.PromptTokens
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		d := &ch.Delta
		answer := d.Content != "" || d.Refusal != "" || present(d.ToolCalls) || present(d.FunctionCall)
		reasoning := d.ReasoningContent != "" || d.Reasoning != ""
		if answer || reasoning {
			st.token(now, answer)
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
		s.Gaps = append(s.Gaps, now.Sub(st.last))
	}
	if answer && s.TTFA == 0 {
		s.TTFA = now.Sub(st.t0)
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

// finish decides how the stream ended and fills the counts.
func (st *streamState) finish(ctx, parent context.Context, scanErr error) {
	s := st.s
	s.Content = st.content.String()
	end := time.Since(st.t0)
	switch {
	case st.err != nil:
		s.Total = end
		s.Fail(st.err)
		return
	case scanErr != nil && !st.done && !(s.Finish != "" && errors.Is(scanErr, io.ErrUnexpectedEOF)):
		s.Total = end
		if errors.Is(scanErr, bufio.ErrTooLong) {
			s.Fail(&sample.RequestError{Kind: sample.KindProtocol, Status: s.Status, Message: "stream line over the length limit", Err: scanErr})
			return
		}
		s.Fail(classify(ctx, parent, scanErr))
		return
	case !st.done && s.Finish == "":
		s.Total = end
		s.Fail(&sample.RequestError{Kind: sample.KindTruncated, Status: s.Status, Message: "stream ended without [DONE] or finish_reason"})
		return
	}
	if !st.done {
		// EOF after a finish_reason: the end of the stream is the EOF.
		s.Total = end
	}
	if st.usage {
		s.TokenSource = sample.TokensUsage
	} else {
		s.OutputTokens = s.Chunks
		s.TokenSource = sample.TokensEstimated
	}
}
