package sim

// Anthropic's Messages API, streamed as its streaming guide gives the
// events (https://docs.anthropic.com/en/docs/build-with-claude/streaming):
// message_start with the prompt's usage (input_tokens net of
// cache_read_input_tokens), then per content block content_block_start,
// its deltas (thinking_delta and a signature_delta for a thinking block,
// text_delta, input_json_delta for a tool_use block, whose name is in its
// start) and content_block_stop; message_delta with stop_reason and the
// final usage.output_tokens; message_stop. A mid-stream fault is an error
// event (overloaded_error), a rate limit HTTP 529 overloaded_error with
// retry-after (https://docs.anthropic.com/en/api/errors). Requests must
// carry max_tokens and the anthropic-version header, as the API refuses
// them without.

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// schemaTool is the tool llmsla forces for a structured answer
// (stream.SchemaTool): the simulator answers it with the text answer as
// the tool's input, as a model does.
const schemaTool = "structured_answer"

type messagesIn struct {
	Model       string          `json:"model"`
	MaxTokens   *int            `json:"max_tokens"`
	System      json.RawMessage `json:"system"`
	Temperature *float64        `json:"temperature"`
	Messages    []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
	Stream bool `json:"stream"`
}

type messagesBlockIn struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// parseMessages reads a Messages request into the chat request it means.
func parseMessages(body []byte, r *http.Request, index int) apiRequest {
	mw := &messagesWire{}
	ar := apiRequest{id: "msg_sim" + strconv.Itoa(index), wire: mw}
	var in messagesIn
	if err := json.Unmarshal(body, &in); err != nil {
		ar.msg = "could not parse the JSON body: " + err.Error()
		return ar
	}
	switch {
	case r.Header.Get("anthropic-version") == "":
		ar.msg = "anthropic-version: header is required"
		return ar
	case in.MaxTokens == nil:
		ar.msg = "max_tokens: Field required"
		return ar
	}
	req := &ar.req
	req.Model, req.Stream, req.MaxTokens = in.Model, in.Stream, *in.MaxTokens
	ar.raw.Temperature = in.Temperature
	if sys := textOf(in.System); sys != "" {
		req.Messages = append(req.Messages, chatMessage("system", sys))
	}
	for _, m := range in.Messages {
		var blocks []messagesBlockIn
		if json.Unmarshal(m.Content, &blocks) != nil {
			req.Messages = append(req.Messages, chatMessage(m.Role, textOf(m.Content)))
			continue
		}
		msg := chatMessage(m.Role, "")
		for _, b := range blocks {
			switch b.Type {
			case "text":
				msg.Content += b.Text
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, chatCall(b.ID, b.Name, string(b.Input)))
			case "tool_result":
				t := chatMessage("tool", textOf(b.Content))
				t.ToolCallID = b.ToolUseID
				req.Messages = append(req.Messages, t)
			}
		}
		if msg.Content != "" || len(msg.ToolCalls) > 0 {
			req.Messages = append(req.Messages, msg)
		}
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, chatTool(t.Name, t.Description, t.InputSchema))
	}
	if tc := in.ToolChoice; tc != nil {
		switch tc.Type {
		case "tool":
			req.ToolChoice = namedTool(tc.Name)
		case "any":
			req.ToolChoice = "required"
		default:
			req.ToolChoice = tc.Type
		}
		if tc.Type == "tool" && tc.Name == schemaTool && len(req.Tools) == 1 {
			req.Tools, req.ToolChoice, mw.schema = nil, nil, true
		}
	}
	return ar
}

// messagesWire streams one call as Messages events.
type messagesWire struct {
	schema  bool   // the text answer goes as a schemaTool tool_use's input
	blocks  int    // content blocks started
	cur     string // the type of the block open, "" when none
	callAt  []int
	scratch []byte
}

func (mw *messagesWire) event(c *call, typ string, rest string) {
	b := append(mw.scratch[:0], `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `"`...)
	b = append(b, rest...)
	b = append(b, '}')
	mw.scratch = b
	c.appendEvent(typ, b)
}

// start closes the open block and starts one, whose JSON is block.
func (mw *messagesWire) start(c *call, typ, block string) int {
	mw.stop(c)
	i := mw.blocks
	mw.blocks++
	mw.cur = typ
	mw.event(c, "content_block_start", `,"index":`+strconv.Itoa(i)+`,"content_block":`+block)
	return i
}

func (mw *messagesWire) stop(c *call) {
	if mw.cur == "" {
		return
	}
	if mw.cur == "thinking" {
		mw.delta(c, "signature_delta", "signature", "c2ltLXNpZ25hdHVyZQ==")
	}
	mw.event(c, "content_block_stop", `,"index":`+strconv.Itoa(mw.blocks-1))
	mw.cur = ""
}

func (mw *messagesWire) delta(c *call, typ, field, text string) {
	b := append([]byte(`,"index":`+strconv.Itoa(mw.blocks-1)+`,"delta":{"type":"`+typ+`","`+field+`":`), nil...)
	b = append(appendJSONString(b, text), '}')
	mw.event(c, "content_block_delta", string(b))
}

func (mw *messagesWire) open(c *call) {
	c.buf = c.buf[:0]
	u := c.usage()
	b := []byte(`,"message":{"id":"` + c.tr.ID + `","type":"message","role":"assistant","model":`)
	b = appendJSONString(b, c.req.Model)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens-c.tr.CachedTokens), 10)
	if c.tr.Cache {
		b = append(b, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":`...)
		b = strconv.AppendInt(b, int64(c.tr.CachedTokens), 10)
	}
	b = append(b, `,"output_tokens":1}}`...)
	mw.event(c, "message_start", string(b))
	c.flushBuf()
}

func (mw *messagesWire) token(c *call, text string, reasoning bool) {
	switch {
	case reasoning:
		if mw.cur != "thinking" {
			mw.start(c, "thinking", `{"type":"thinking","thinking":""}`)
		}
		mw.delta(c, "thinking_delta", "thinking", text)
	case mw.schema:
		if mw.cur != "schema" {
			mw.start(c, "schema", `{"type":"tool_use","id":"toolu_sim`+strconv.Itoa(c.tr.Index)+`","name":"`+schemaTool+`","input":{}}`)
		}
		mw.delta(c, "input_json_delta", "partial_json", text)
	default:
		if mw.cur != "text" {
			mw.start(c, "text", `{"type":"text","text":""}`)
		}
		mw.delta(c, "text_delta", "text", text)
	}
}

func (mw *messagesWire) tool(c *call, ch toolChunk) {
	for _, t := range ch.toks {
		if t.name {
			tc := c.tools.calls[t.call]
			b := appendJSONString([]byte(`{"type":"tool_use","id":`), tc.ID)
			b = appendJSONString(append(b, `,"name":`...), t.text)
			mw.callAt = append(mw.callAt, mw.start(c, "tool_use", string(append(b, `,"input":{}}`...))))
			continue
		}
		mw.delta(c, "input_json_delta", "partial_json", t.text)
	}
}

// stopReasons are chat's finish reasons in Messages' stop_reason.
var stopReasons = map[string]string{"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}

func (mw *messagesWire) end(c *call) {
	tr := c.tr
	tr.Finish = c.finish
	c.buf = c.buf[:0]
	mw.stop(c)
	u := c.usage()
	mw.event(c, "message_delta", `,"delta":{"stop_reason":"`+stopReasons[c.finish]+`","stop_sequence":null},"usage":{"output_tokens":`+strconv.Itoa(u.CompletionTokens)+`}`)
	at := c.flushBuf()
	if c.tools != nil && !c.failed {
		tr.ToolDone = at
	}
	c.buf = c.buf[:0]
	mw.event(c, "message_stop", "")
	c.flushBuf()
}

func (mw *messagesWire) fail(c *call) {
	c.buf = c.buf[:0]
	mw.event(c, "error", `,"error":{"type":"overloaded_error","message":"Overloaded"}`)
	c.flushBuf()
}

// status answers a rate limit as Anthropic answers overload: 529
// overloaded_error, with retry-after.
func (mw *messagesWire) status(c *call) bool {
	if c.tr.Fault != FaultRateLimited {
		return false
	}
	h := c.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("retry-after", "2")
	h.Set("request-id", c.tr.ID)
	c.w.WriteHeader(529)
	io.WriteString(c.w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	c.stampStatus(529)
	return true
}
