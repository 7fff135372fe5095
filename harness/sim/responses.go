package sim

// OpenAI's Responses API, streamed as its reference gives the events
// (https://platform.openai.com/docs/api-reference/responses-streaming):
// response.created, then per output item output_item.added and its
// deltas (reasoning_summary_text.delta for reasoning, output_text.delta
// for text, function_call_arguments.delta for a function_call item's
// arguments, its name in the item added), output_item.done, and
// response.completed — or response.incomplete with incomplete_details
// max_output_tokens when the cap cut the answer — with usage
// (input_tokens_details.cached_tokens, output_tokens_details.
// reasoning_tokens). A mid-stream fault is an error event.

import (
	"encoding/json"
	"net/http"
	"strconv"
)

type responsesIn struct {
	Model           string          `json:"model"`
	Instructions    string          `json:"instructions"`
	Input           json.RawMessage `json:"input"`
	MaxOutputTokens int             `json:"max_output_tokens"`
	Temperature     *float64        `json:"temperature"`
	Tools           []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	Stream     bool            `json:"stream"`
}

type responsesItemIn struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    string          `json:"output"`
}

// parseResponses reads a Responses request into the chat request it means.
func parseResponses(body []byte, _ *http.Request, index int) apiRequest {
	ar := apiRequest{id: "resp_sim" + strconv.Itoa(index), wire: &responsesWire{}}
	var in responsesIn
	if err := json.Unmarshal(body, &in); err != nil {
		ar.msg = "could not parse the JSON body: " + err.Error()
		return ar
	}
	req := &ar.req
	req.Model, req.Stream, req.MaxTokens = in.Model, in.Stream, in.MaxOutputTokens
	ar.raw.Temperature = in.Temperature
	if in.Instructions != "" {
		req.Messages = append(req.Messages, chatMessage("system", in.Instructions))
	}
	var input string
	var items []responsesItemIn
	switch {
	case json.Unmarshal(in.Input, &input) == nil:
		req.Messages = append(req.Messages, chatMessage("user", input))
	case json.Unmarshal(in.Input, &items) == nil:
		for _, it := range items {
			switch it.Type {
			case "function_call":
				n := len(req.Messages)
				if n == 0 || req.Messages[n-1].Role != "assistant" || len(req.Messages[n-1].ToolCalls) == 0 {
					req.Messages = append(req.Messages, chatMessage("assistant", ""))
					n++
				}
				req.Messages[n-1].ToolCalls = append(req.Messages[n-1].ToolCalls, chatCall(it.CallID, it.Name, it.Arguments))
			case "function_call_output":
				m := chatMessage("tool", it.Output)
				m.ToolCallID = it.CallID
				req.Messages = append(req.Messages, m)
			case "", "message":
				req.Messages = append(req.Messages, chatMessage(it.Role, textOf(it.Content)))
			}
		}
	default:
		ar.msg = "input is neither a string nor an array of items"
		return ar
	}
	for _, t := range in.Tools {
		if t.Type == "function" {
			req.Tools = append(req.Tools, chatTool(t.Name, t.Description, t.Parameters))
		}
	}
	var word string
	var named struct {
		Name string `json:"name"`
	}
	switch {
	case json.Unmarshal(in.ToolChoice, &word) == nil:
		req.ToolChoice = word
	case json.Unmarshal(in.ToolChoice, &named) == nil && named.Name != "":
		req.ToolChoice = namedTool(named.Name)
	}
	return ar
}

// responsesWire streams one call as Responses events.
type responsesWire struct {
	seq     int
	items   int  // output items opened
	text    bool // a message item is open (its output_index items-1)
	reason  bool // a reasoning item is open
	callAt  []int
	scratch []byte
}

// event appends one event whose JSON is {"type":typ,"sequence_number":n,
// then rest.
func (rw *responsesWire) event(c *call, typ string, rest func(b []byte) []byte) {
	b := append(rw.scratch[:0], `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","sequence_number":`...)
	b = strconv.AppendInt(b, int64(rw.seq), 10)
	rw.seq++
	b = rest(append(b, ','))
	b = append(b, '}')
	rw.scratch = b
	c.appendEvent(typ, b)
}

func (rw *responsesWire) response(c *call, status string) func([]byte) []byte {
	return func(b []byte) []byte {
		b = append(b, `"response":{"id":"`+c.tr.ID+`","object":"response","created_at":`...)
		b = strconv.AppendInt(b, c.tr.Received.Unix(), 10)
		b = append(b, `,"status":"`+status+`","model":`...)
		b = appendJSONString(b, c.req.Model)
		return b
	}
}

func (rw *responsesWire) open(c *call) {
	c.buf = c.buf[:0]
	resp := rw.response(c, "in_progress")
	rw.event(c, "response.created", func(b []byte) []byte { return append(resp(b), `,"output":[],"usage":null}`...) })
	c.flushBuf()
}

// item opens an output item of typ with the JSON fields more.
func (rw *responsesWire) item(c *call, more string) int {
	i := rw.items
	rw.items++
	rw.event(c, "response.output_item.added", func(b []byte) []byte {
		b = append(b, `"output_index":`+strconv.Itoa(i)+`,"item":{`...)
		return append(append(b, more...), '}')
	})
	return i
}

func (rw *responsesWire) delta(c *call, typ string, i int, extra, text string) {
	rw.event(c, typ, func(b []byte) []byte {
		b = append(b, `"item_id":"item_`+strconv.Itoa(i)+`","output_index":`+strconv.Itoa(i)+extra+`,"delta":`...)
		return appendJSONString(b, text)
	})
}

func (rw *responsesWire) token(c *call, text string, reasoning bool) {
	if reasoning {
		if !rw.reason {
			rw.reason = true
			rw.item(c, `"type":"reasoning","id":"item_`+strconv.Itoa(rw.items)+`","summary":[]`)
		}
		rw.delta(c, "response.reasoning_summary_text.delta", rw.items-1, `,"summary_index":0`, text)
		return
	}
	if !rw.text {
		rw.text = true
		rw.item(c, `"type":"message","id":"item_`+strconv.Itoa(rw.items)+`","status":"in_progress","role":"assistant","content":[]`)
	}
	rw.delta(c, "response.output_text.delta", rw.items-1, `,"content_index":0`, text)
}

func (rw *responsesWire) tool(c *call, ch toolChunk) {
	for _, t := range ch.toks {
		if t.name {
			tc := c.tools.calls[t.call]
			b := append([]byte(nil), `"type":"function_call","id":"item_`+strconv.Itoa(rw.items)+`","call_id":`...)
			b = appendJSONString(b, tc.ID)
			b = appendJSONString(append(b, `,"name":`...), t.text)
			b = append(b, `,"arguments":"","status":"in_progress"`...)
			rw.callAt = append(rw.callAt, rw.item(c, string(b)))
			continue
		}
		rw.delta(c, "response.function_call_arguments.delta", rw.callAt[t.call], "", t.text)
	}
}

func (rw *responsesWire) end(c *call) {
	tr := c.tr
	tr.Finish = c.finish
	c.buf = c.buf[:0]
	for i := range rw.items {
		rw.event(c, "response.output_item.done", func(b []byte) []byte {
			return append(b, `"output_index":`+strconv.Itoa(i)+`,"item":{"id":"item_`+strconv.Itoa(i)+`","status":"completed"}`...)
		})
	}
	status, typ := "completed", "response.completed"
	if c.finish == "length" {
		status, typ = "incomplete", "response.incomplete"
	}
	u := c.usage()
	resp := rw.response(c, status)
	rw.event(c, typ, func(b []byte) []byte {
		b = resp(b)
		if status == "incomplete" {
			b = append(b, `,"incomplete_details":{"reason":"max_output_tokens"}`...)
		}
		b = append(b, `,"usage":{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
		if u.PromptDetails != nil {
			b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
			b = append(strconv.AppendInt(b, int64(u.PromptDetails.CachedTokens), 10), '}')
		}
		b = append(b, `,"output_tokens":`...)
		b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
		if u.Details != nil {
			b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
			b = append(strconv.AppendInt(b, int64(u.Details.ReasoningTokens), 10), '}')
		}
		b = append(b, `,"total_tokens":`...)
		b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
		return append(b, `}}`...)
	})
	at := c.flushBuf()
	if c.tools != nil && !c.failed {
		tr.ToolDone = at
	}
}

func (rw *responsesWire) fail(c *call) {
	c.buf = c.buf[:0]
	rw.event(c, "error", func(b []byte) []byte {
		return append(b, `"code":"server_error","message":"overloaded","param":null`...)
	})
	c.flushBuf()
}

func (rw *responsesWire) status(*call) bool { return false }
