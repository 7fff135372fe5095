package stream

// Anthropic's Messages API (POST /v1/messages), as its reference and
// streaming guide give it: https://docs.anthropic.com/en/api/messages
// and https://docs.anthropic.com/en/docs/build-with-claude/streaming
// (errors: https://docs.anthropic.com/en/api/errors, 529
// overloaded_error). Every event names its type in an event: line and in
// its data's "type".

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/sample"
)

// messagesRequest is the body sent: system messages in system, the rest
// as user and assistant turns of content blocks (an assistant's tool
// calls tool_use blocks, tool results tool_result blocks in a user turn),
// max_tokens always (the API requires it).
type messagesRequest struct {
	Model       string            `json:"model"`
	MaxTokens   int               `json:"max_tokens"`
	System      string            `json:"system,omitempty"`
	Messages    []messagesMessage `json:"messages"`
	Temperature *float32          `json:"temperature,omitempty"`
	Tools       []messagesTool    `json:"tools,omitempty"`
	ToolChoice  any               `json:"tool_choice,omitempty"`
	Stream      bool              `json:"stream"`
}

type messagesMessage struct {
	Role    string          `json:"role"`
	Content []messagesBlock `json:"content"`
}

type messagesBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type messagesTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// SchemaTool is the tool a Messages request forces for a structured
// answer (response_format json_schema): its input_schema is the schema,
// and the reader takes its input as the answer's text.
const SchemaTool = "structured_answer"

// messagesBody builds the Messages request of req.
func messagesBody(model string, req Request) (messagesRequest, error) {
	w := messagesRequest{Model: model, MaxTokens: req.MaxTokens, Temperature: req.Temperature, Stream: true, Messages: []messagesMessage{}}
	if req.FixedTokens > 0 {
		w.MaxTokens = req.FixedTokens
	}
	if w.MaxTokens <= 0 {
		w.MaxTokens = DefaultMessagesMaxTokens
	}
	add := func(role string, b messagesBlock) {
		if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
			w.Messages[n-1].Content = append(w.Messages[n-1].Content, b)
			return
		}
		w.Messages = append(w.Messages, messagesMessage{Role: role, Content: []messagesBlock{b}})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case openai.ChatMessageRoleSystem, openai.ChatMessageRoleDeveloper:
			if w.System != "" {
				w.System += "\n\n"
			}
			w.System += text(m)
		case openai.ChatMessageRoleTool:
			add("user", messagesBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: text(m)})
		case openai.ChatMessageRoleUser, openai.ChatMessageRoleAssistant:
			if t := text(m); t != "" {
				add(m.Role, messagesBlock{Type: "text", Text: t})
			}
			for _, tc := range m.ToolCalls {
				input := json.RawMessage(tc.Function.Arguments)
				if !json.Valid(input) || len(input) == 0 || input[0] != '{' {
					input = json.RawMessage(`{}`) // a broken call in the history: its input must be an object
				}
				add(m.Role, messagesBlock{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name, Input: input})
			}
		default:
			return w, fmt.Errorf("message role %q has no Messages API form", m.Role)
		}
	}
	for _, t := range req.Tools {
		if t.Function == nil {
			continue
		}
		p, _ := json.Marshal(t.Function.Parameters)
		if len(p) == 0 || string(p) == "null" {
			p = json.RawMessage(`{"type":"object"}`)
		}
		w.Tools = append(w.Tools, messagesTool{Name: t.Function.Name, Description: t.Function.Description, InputSchema: p})
	}
	switch name, word := toolChoiceName(req.ToolChoice); {
	case name != "":
		w.ToolChoice = map[string]string{"type": "tool", "name": name}
	case word == "required":
		w.ToolChoice = map[string]string{"type": "any"}
	case word == "none" || word == "auto":
		w.ToolChoice = map[string]string{"type": word}
	}
	if _, schema, _, ok := schemaOf(req.ResponseFormat); ok {
		if len(w.Tools) > 0 {
			return w, errors.New("a structured answer on the Messages API is a forced tool, and the request offers tools already")
		}
		w.Tools = []messagesTool{{Name: SchemaTool, Description: "Answer with this JSON.", InputSchema: schema}}
		w.ToolChoice = map[string]string{"type": "tool", "name": SchemaTool}
	}
	return w, nil
}

// messagesEvent is the union of the streamed events read.
type messagesEvent struct {
	Type    string `json:"type"`
	Index   *int   `json:"index"`
	Message *struct {
		ID    string         `json:"id"`
		Model looseString    `json:"model"`
		Usage *messagesUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Text  string          `json:"text"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *messagesDelta `json:"delta"`
	Usage *messagesUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// messagesDelta is a content_block_delta's delta, or message_delta's.
type messagesDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

type messagesUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
}

// maxBlocks bounds a content block's index.
const maxBlocks = 1024

// A content block's state.
type messagesBlockState struct {
	typ     string
	call    int // the tool call's index in the assembler, for tool_use
	stopped bool
}

// messagesReader reads a Messages stream. A block must be started
// (content_block_start) before its deltas and not stopped; an index out
// of range, a delta for a block never started, and a delta of a type its
// block cannot carry are protocol errors. The prompt's tokens are
// message_start's usage, as message_delta's updates it (input_tokens are
// net of the cache: the prompt is
// their sum with cache_read_input_tokens and cache_creation_input_tokens,
// of which the read ones were cached); the output tokens message_delta's
// usage, the final count. A stream whose message_delta carries no usage
// has its output counted from its chunks, and says so (token_source
// estimated). Unknown event and block types are skipped, as the docs ask
// of a client ("handle unknown event types gracefully").
type messagesReader struct {
	blocks []messagesBlockState
	// The prompt's counts field by field, message_start's each replaced
	// by message_delta's where it has one: message_delta's usage is
	// cumulative, and a gateway translating another API (LiteLLM's
	// /v1/messages adapter) sends zeros at message_start and the counts
	// only in message_delta.
	input, cacheRead, cacheCreate *int
	output                        *int
	// ev and room are where each event is decoded: the reader's, so that
	// an event costs no allocation of its own (encoding/json's fallback
	// would move a local event to the heap).
	ev   messagesEvent
	room messagesRoom
}

func (r *messagesReader) event(st *streamState, event, data []byte, now time.Time) bool {
	e := &r.ev
	*e = messagesEvent{}
	if !fastMessagesEvent(data, e, &r.room) {
		*e = messagesEvent{}
		if err := json.Unmarshal(data, e); err != nil {
			if string(event) == "error" {
				return st.fail(sample.KindMidstream, errorMessage(data, st.sec, false), nil)
			}
			return st.fail(sample.KindProtocol, "undecodable Messages event: "+st.quote(data, 80), err)
		}
	}
	if e.Type == "" {
		e.Type = string(event)
	}
	s := st.s
	switch e.Type {
	case "ping":
	case "message_start":
		if e.Message == nil {
			return st.fail(sample.KindProtocol, "message_start without its message", nil)
		}
		st.provenance(&chunk{ID: e.Message.ID, Model: e.Message.Model})
		if u := e.Message.Usage; u != nil {
			if msg := r.promptUsage("message_start", u); msg != "" {
				return st.fail(sample.KindProtocol, msg, nil)
			}
		}
	case "content_block_start":
		return r.start(st, e, now)
	case "content_block_delta":
		return r.delta(st, e, now)
	case "content_block_stop":
		b, msg := r.block(e.Index, "content_block_stop")
		if msg != "" {
			return st.fail(sample.KindProtocol, msg, nil)
		}
		b.stopped = true
	case "message_delta":
		if e.Usage != nil {
			if msg := r.promptUsage("message_delta", e.Usage); msg != "" {
				return st.fail(sample.KindProtocol, msg, nil)
			}
		}
		if e.Usage != nil && e.Usage.OutputTokens != nil {
			if *e.Usage.OutputTokens < 0 {
				return st.fail(sample.KindProtocol, fmt.Sprintf("message_delta usage.output_tokens %d is negative", *e.Usage.OutputTokens), nil)
			}
			n := *e.Usage.OutputTokens
			r.output = &n
		}
		if e.Delta != nil && e.Delta.StopReason != "" {
			s.Finish = messagesFinish(e.Delta.StopReason)
			s.Total = now.Sub(st.t0)
			if e.Delta.StopReason == "tool_use" && len(st.tools.calls) > 0 && s.ToolDone == 0 {
				s.ToolDone = s.Total
			}
		}
	case "message_stop":
		if msg := r.usage(st); msg != "" {
			return st.fail(sample.KindProtocol, msg, nil)
		}
		st.done = true
		s.Total = now.Sub(st.t0)
		return true
	case "error":
		kind, msg := sample.KindMidstream, "error event"
		if e.Error != nil {
			msg += ": " + st.quote([]byte(e.Error.Type+": "+e.Error.Message), maxMessage)
			if e.Error.Type == "overloaded_error" || e.Error.Type == "rate_limit_error" {
				kind = sample.KindRateLimited
			}
		}
		return st.fail(kind, msg, nil)
	}
	return false
}

// messagesFinish maps a stop_reason to chat's finish reasons
// (docs.anthropic.com/en/api/handling-stop-reasons).
func messagesFinish(reason string) string {
	switch reason {
	case "end_turn", "stop_sequence", "pause_turn":
		return "stop"
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "tool_use":
		return string(openai.FinishReasonToolCalls)
	case "refusal":
		return string(openai.FinishReasonContentFilter)
	}
	return reason
}

// block is the started block at index, or what is wrong with it.
func (r *messagesReader) block(index *int, what string) (*messagesBlockState, string) {
	switch {
	case index == nil:
		return nil, what + " without index"
	case *index < 0 || *index >= maxBlocks:
		return nil, fmt.Sprintf("%s: index %d out of range [0, %d)", what, *index, maxBlocks)
	case *index >= len(r.blocks) || r.blocks[*index].typ == "":
		return nil, fmt.Sprintf("%s for block %d before its content_block_start", what, *index)
	}
	return &r.blocks[*index], ""
}

func (r *messagesReader) start(st *streamState, e *messagesEvent, now time.Time) bool {
	switch {
	case e.Index == nil || e.ContentBlock == nil:
		return st.fail(sample.KindProtocol, "content_block_start without index or content_block", nil)
	case *e.Index < 0 || *e.Index >= maxBlocks:
		return st.fail(sample.KindProtocol, fmt.Sprintf("content_block_start: index %d out of range [0, %d)", *e.Index, maxBlocks), nil)
	}
	i := *e.Index
	for len(r.blocks) <= i {
		r.blocks = append(r.blocks, messagesBlockState{})
	}
	if r.blocks[i].typ != "" {
		return st.fail(sample.KindProtocol, fmt.Sprintf("content_block_start: block %d started twice", i), nil)
	}
	cb := e.ContentBlock
	typ := cb.Type
	if typ == "" {
		typ = "unknown"
	}
	r.blocks[i] = messagesBlockState{typ: typ}
	switch cb.Type {
	case "text":
		r.text(st, cb.Text, now)
	case "tool_use":
		if cb.Name == SchemaTool {
			r.blocks[i].typ = "schema"
			return false
		}
		r.blocks[i].call = len(st.tools.calls) // past maxToolCalls the assembler drops it
		r.tool(st, &r.blocks[i], cb.ID, cb.Name, "", now)
	}
	return false
}

func (r *messagesReader) delta(st *streamState, e *messagesEvent, now time.Time) bool {
	b, msg := r.block(e.Index, "content_block_delta")
	if msg != "" {
		return st.fail(sample.KindProtocol, msg, nil)
	}
	if b.stopped {
		return st.fail(sample.KindProtocol, fmt.Sprintf("content_block_delta for block %d after its content_block_stop", *e.Index), nil)
	}
	if e.Delta == nil {
		return st.fail(sample.KindProtocol, "content_block_delta without delta", nil)
	}
	d := e.Delta
	want := ""
	switch d.Type {
	case "text_delta":
		want = "text"
	case "thinking_delta", "signature_delta":
		want = "thinking"
	case "input_json_delta":
		want = "tool_use"
	default:
		return false // a delta type this reader does not know (citations_delta)
	}
	if b.typ != want && !(b.typ == "schema" && d.Type == "input_json_delta") {
		return st.fail(sample.KindProtocol, fmt.Sprintf("content_block_delta %s in a %s block", d.Type, st.quote([]byte(b.typ), 40)), nil)
	}
	switch d.Type {
	case "text_delta":
		r.text(st, d.Text, now)
	case "thinking_delta":
		if d.Thinking != "" {
			st.token(now, false)
			st.thoughts++
			st.s.Reasoning += len(d.Thinking)
		}
	case "input_json_delta":
		if b.typ == "schema" {
			r.text(st, d.PartialJSON, now)
			return false
		}
		r.tool(st, b, "", "", d.PartialJSON, now)
	}
	return false
}

func (r *messagesReader) text(st *streamState, t string, now time.Time) {
	if t != "" {
		st.token(now, true)
		st.keep(t)
	}
}

// tool adds a tool_use block's id, name or input bytes to its call.
func (r *messagesReader) tool(st *streamState, b *messagesBlockState, id, name, args string, now time.Time) {
	idx := b.call
	d := toolDelta{Index: &idx, ID: id, Function: toolFunction{Name: name, Arguments: arguments(args)}}
	if st.tools.delta(&d) {
		st.token(now, true)
		if st.s.TTFTool == 0 {
			st.s.TTFTool = now.Sub(st.t0)
		}
	}
}

// promptUsage keeps the prompt counts an event's usage has.
func (r *messagesReader) promptUsage(what string, u *messagesUsage) string {
	for _, f := range []struct {
		name string
		n    *int
		keep **int
	}{{"input_tokens", u.InputTokens, &r.input}, {"cache_read_input_tokens", u.CacheReadInputTokens, &r.cacheRead}, {"cache_creation_input_tokens", u.CacheCreationInputTokens, &r.cacheCreate}} {
		if f.n == nil {
			continue
		}
		if *f.n < 0 {
			return fmt.Sprintf("%s usage.%s %d is negative", what, f.name, *f.n)
		}
		n := *f.n
		*f.keep = &n
	}
	return ""
}

// usage puts the counts read into the state, by chat's rules, once the
// message is over; without message_delta's output_tokens there is no
// usage, and the chunks are counted. The prompt is input_tokens (net of
// the cache) with cache_read_input_tokens and cache_creation_input_tokens,
// of which the read ones were cached; without input_tokens it is unknown.
func (r *messagesReader) usage(st *streamState) string {
	var prompt, cached *int
	if r.input != nil {
		p := *r.input
		if r.cacheRead != nil {
			c := *r.cacheRead
			p += c
			cached = &c
		}
		if r.cacheCreate != nil {
			p += *r.cacheCreate
		}
		prompt = &p
	}
	if r.output == nil {
		if prompt != nil {
			st.s.PromptTokens = *prompt
		}
		if cached != nil {
			st.counts.cachedTok = cached
		}
		return ""
	}
	cu := chunkUsage{CompletionTokens: *r.output}
	if prompt != nil {
		cu.PromptTokens = *prompt
	}
	cu.TotalTokens = cu.PromptTokens + cu.CompletionTokens
	if cached != nil {
		cu.PromptTokensDetails = &promptDetails{CachedTokens: cached}
	}
	return st.readUsage(&chunk{Usage: &cu})
}
