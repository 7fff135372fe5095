package stream

// OpenAI's Responses API (POST /v1/responses), as its reference and
// streaming guide give it:
// https://platform.openai.com/docs/api-reference/responses/create and
// https://platform.openai.com/docs/api-reference/responses-streaming.
// The stream is typed events, each data a JSON object whose "type" names
// it (the SSE event: line says the same).

import (
	"encoding/json"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/sample"
)

// responsesRequest is the body sent: the scenario's settings in the
// Responses API's names (system → instructions, max_tokens →
// max_output_tokens, response_format → text.format). store false: a
// measurement leaves nothing behind on the server.
type responsesRequest struct {
	Model           string          `json:"model"`
	Instructions    string          `json:"instructions,omitempty"`
	Input           []any           `json:"input"`
	MaxOutputTokens int             `json:"max_output_tokens,omitempty"`
	Temperature     *float32        `json:"temperature,omitempty"`
	Tools           []responsesTool `json:"tools,omitempty"`
	ToolChoice      any             `json:"tool_choice,omitempty"`
	Text            *responsesText  `json:"text,omitempty"`
	Stream          bool            `json:"stream"`
	Store           bool            `json:"store"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
}

type responsesText struct {
	Format responsesFormat `json:"format"`
}

type responsesFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict bool            `json:"strict,omitempty"`
}

// Input items other than a plain message.
type responsesMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responsesCall struct {
	Type      string `json:"type"` // function_call
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type responsesCallOutput struct {
	Type   string `json:"type"` // function_call_output
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// responsesBody builds the Responses request of req: system messages
// become instructions, the history input items (an assistant's tool calls
// function_call items, tool results function_call_output items).
// Conversations send their history; previous_response_id is not used, so
// that every turn is timed on the same prompt as through chat.
func responsesBody(model string, req Request) responsesRequest {
	w := responsesRequest{Model: model, MaxOutputTokens: req.MaxTokens, Temperature: req.Temperature, Stream: true, Input: []any{}}
	if req.FixedTokens > 0 {
		w.MaxOutputTokens = req.FixedTokens
	}
	for _, m := range req.Messages {
		switch m.Role {
		case openai.ChatMessageRoleSystem, openai.ChatMessageRoleDeveloper:
			if w.Instructions != "" {
				w.Instructions += "\n\n"
			}
			w.Instructions += text(m)
		case openai.ChatMessageRoleTool:
			w.Input = append(w.Input, responsesCallOutput{Type: "function_call_output", CallID: m.ToolCallID, Output: text(m)})
		default:
			if t := text(m); t != "" || len(m.ToolCalls) == 0 {
				w.Input = append(w.Input, responsesMessage{Role: m.Role, Content: t})
			}
			for _, tc := range m.ToolCalls {
				w.Input = append(w.Input, responsesCall{Type: "function_call", CallID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
		}
	}
	for _, t := range req.Tools {
		if t.Function == nil {
			continue
		}
		p, _ := json.Marshal(t.Function.Parameters)
		w.Tools = append(w.Tools, responsesTool{Type: "function", Name: t.Function.Name, Description: t.Function.Description, Parameters: p, Strict: t.Function.Strict})
	}
	if name, word := toolChoiceName(req.ToolChoice); name != "" {
		w.ToolChoice = map[string]string{"type": "function", "name": name}
	} else if word != "" {
		w.ToolChoice = word
	}
	if name, schema, strict, ok := schemaOf(req.ResponseFormat); ok {
		w.Text = &responsesText{Format: responsesFormat{Type: "json_schema", Name: name, Schema: schema, Strict: strict}}
	} else if rf := req.ResponseFormat; rf != nil && rf.Type == openai.ChatCompletionResponseFormatTypeJSONObject {
		w.Text = &responsesText{Format: responsesFormat{Type: "json_object"}}
	}
	return w
}

// responsesEvent is the union of the streamed events read.
type responsesEvent struct {
	Type        string             `json:"type"`
	Delta       string             `json:"delta"`
	OutputIndex *int               `json:"output_index"`
	Item        *responsesItem     `json:"item"`
	Response    *responsesResponse `json:"response"`
	// An error event's.
	Code    looseString `json:"code"`
	Message string      `json:"message"`
}

type responsesItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type responsesResponse struct {
	ID                string          `json:"id"`
	Model             looseString     `json:"model"`
	Status            string          `json:"status"`
	Usage             *responsesUsage `json:"usage"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    looseString `json:"code"`
		Message string      `json:"message"`
	} `json:"error"`
}

type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	TotalTokens        int `json:"total_tokens"`
	InputTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// maxOutputIndex bounds the output_index a stream may name: far more
// output items than any answer has, few enough that a hostile index
// cannot make the reader allocate.
const maxOutputIndex = 1024

// responsesReader reads a Responses stream. Function calls are kept by
// their output item's index: a function_call_arguments.delta for an
// index no output_item.added opened as a function call is a protocol
// error, as is an index out of range. Events of types it does not know
// are skipped: the API adds event types (built-in tools, annotations)
// and a reader that failed on them would fail on servers that work.
type responsesReader struct {
	calls map[int]int // output_index → the call's index in the assembler
	// ev and index are where each event is decoded: the reader's, so
	// that an event costs no allocation of its own (encoding/json's
	// fallback would move a local event to the heap).
	ev    responsesEvent
	index int
}

func (r *responsesReader) event(st *streamState, event, data []byte, now time.Time) bool {
	e := &r.ev
	*e = responsesEvent{}
	if !fastResponsesEvent(data, e, &r.index) {
		*e = responsesEvent{}
		if err := json.Unmarshal(data, e); err != nil {
			return st.fail(sample.KindProtocol, "undecodable Responses event: "+st.quote(data, 80), err)
		}
	}
	if e.Type == "" {
		e.Type = string(event)
	}
	if e.OutputIndex != nil && (*e.OutputIndex < 0 || *e.OutputIndex >= maxOutputIndex) {
		return st.fail(sample.KindProtocol, fmt.Sprintf("%s: output_index %d out of range [0, %d)", st.quote([]byte(e.Type), 60), *e.OutputIndex, maxOutputIndex), nil)
	}
	s := st.s
	switch e.Type {
	case "response.created", "response.in_progress", "response.queued":
		r.provenance(st, e.Response)
	case "response.output_text.delta", "response.refusal.delta":
		if e.Delta != "" {
			st.token(now, true)
			if e.Type == "response.output_text.delta" {
				st.keep(e.Delta)
			}
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if e.Delta != "" {
			st.token(now, false)
			st.thoughts++
			s.Reasoning += len(e.Delta)
		}
	case "response.output_item.added":
		if e.Item == nil || e.Item.Type != "function_call" {
			return false
		}
		if e.OutputIndex == nil {
			return st.fail(sample.KindProtocol, "response.output_item.added: a function_call item without output_index", nil)
		}
		if r.calls == nil {
			r.calls = map[int]int{}
		}
		if _, dup := r.calls[*e.OutputIndex]; dup {
			return st.fail(sample.KindProtocol, fmt.Sprintf("response.output_item.added: output_index %d opened twice", *e.OutputIndex), nil)
		}
		r.calls[*e.OutputIndex] = len(r.calls)
		r.tool(st, *e.OutputIndex, e.Item.CallID, e.Item.Name, e.Item.Arguments, now)
	case "response.function_call_arguments.delta":
		if e.OutputIndex == nil {
			return st.fail(sample.KindProtocol, "response.function_call_arguments.delta without output_index", nil)
		}
		if _, ok := r.calls[*e.OutputIndex]; !ok {
			return st.fail(sample.KindProtocol, fmt.Sprintf("response.function_call_arguments.delta for output_index %d before its function_call item was added", *e.OutputIndex), nil)
		}
		r.tool(st, *e.OutputIndex, "", "", e.Delta, now)
	case "response.completed", "response.incomplete":
		if e.Response == nil {
			return st.fail(sample.KindProtocol, e.Type+" without its response", nil)
		}
		r.provenance(st, e.Response)
		if msg := r.usage(st, e.Response.Usage); msg != "" {
			return st.fail(sample.KindProtocol, msg, nil)
		}
		s.Finish = "stop"
		if len(st.tools.calls) > 0 {
			s.Finish = string(openai.FinishReasonToolCalls)
		}
		// vLLM ends a response cut by max_output_tokens with
		// response.completed whose status is incomplete (its
		// responses_stream_generator sends no response.incomplete).
		if e.Type == "response.incomplete" || e.Response.Status == "incomplete" {
			s.Finish = "length"
			if d := e.Response.IncompleteDetails; d != nil && d.Reason == "content_filter" {
				s.Finish = string(openai.FinishReasonContentFilter)
			}
		}
		st.done = true
		s.Total = now.Sub(st.t0)
		if len(st.tools.calls) > 0 && s.ToolDone == 0 {
			s.ToolDone = s.Total
		}
		return true
	case "response.failed":
		msg := "response.failed"
		if e.Response != nil && e.Response.Error != nil {
			msg += ": " + st.quote([]byte(string(e.Response.Error.Code)+": "+e.Response.Error.Message), maxMessage)
		}
		return st.fail(sample.KindMidstream, msg, nil)
	case "error":
		kind := sample.KindMidstream
		if e.Code == "rate_limit_exceeded" {
			kind = sample.KindRateLimited
		}
		return st.fail(kind, "error event: "+st.quote([]byte(string(e.Code)+": "+e.Message), maxMessage), nil)
	}
	return false
}

// tool adds a function call's name or argument bytes at output item i.
func (r *responsesReader) tool(st *streamState, i int, id, name, args string, now time.Time) {
	idx := r.calls[i]
	d := toolDelta{Index: &idx, ID: id, Function: toolFunction{Name: name, Arguments: arguments(args)}}
	if st.tools.delta(&d) {
		st.token(now, true)
		if st.s.TTFTool == 0 {
			st.s.TTFTool = now.Sub(st.t0)
		}
	}
}

func (r *responsesReader) provenance(st *streamState, resp *responsesResponse) {
	if resp != nil {
		st.provenance(&chunk{ID: resp.ID, Model: resp.Model})
	}
}

// usage takes the final usage: input_tokens counts the cached ones
// (input_tokens_details.cached_tokens), output_tokens the reasoning ones
// (output_tokens_details.reasoning_tokens), as chat's usage does; it is
// read by chat's rules (readUsage).
func (r *responsesReader) usage(st *streamState, u *responsesUsage) string {
	if u == nil {
		return ""
	}
	cu := chunkUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	if d := u.InputTokensDetails; d != nil {
		cu.PromptTokensDetails = &promptDetails{CachedTokens: d.CachedTokens}
	}
	if d := u.OutputTokensDetails; d != nil {
		cu.CompletionTokensDetails = &completionDetails{ReasoningTokens: d.ReasoningTokens}
	}
	return st.readUsage(&chunk{Usage: &cu})
}
