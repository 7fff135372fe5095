package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// The APIs beside chat completions (api.go, responses.go, messages.go,
// embeddings.go). A Responses or Messages request is read into the chat
// request it means (system, history, tools, max tokens), answered by the
// same plan, latency model, faults, prefix cache and truth as chat, and
// streamed in its API's events by a wire. Only streaming is served: the
// harness streams every request it times.

// wire is an API's event framing of a call's stream.
type wire interface {
	// open sends what comes before the first token, once generation has
	// begun (response.created, message_start with the prompt's usage).
	open(c *call)
	// token appends the events of one generated token to c.buf.
	token(c *call, text string, reasoning bool)
	// tool appends the events of one planned tool chunk to c.buf.
	tool(c *call, ch toolChunk)
	// end sends the normal end, with usage; it sets Truth.Finish and,
	// for a tool answer, Truth.ToolDone.
	end(c *call)
	// fail sends the API's mid-stream error event.
	fail(c *call)
	// status answers a status fault in the API's error shape, and
	// reports whether it did (else chat's shape is sent).
	status(c *call) bool
}

// apiRequest is what an API handler read: the chat request it means and
// the wire that streams the answer; msg is what is wrong with it.
type apiRequest struct {
	req  openai.ChatCompletionRequest
	raw  rawParams
	wire wire
	id   string
	msg  string
}

// serveAPI answers a request of an API other than chat, as chat does.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, parse func(body []byte, r *http.Request, index int) apiRequest) {
	tr, cfg, gen := s.begin(time.Now())
	var c *call
	defer func() { s.end(&tr, gen, c != nil && c.started) }()
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	var ar apiRequest
	if err != nil {
		ar.msg = "could not read the body: " + err.Error()
	} else {
		ar = parse(body, r, tr.Index)
	}
	if ar.msg == "" && !ar.req.Stream {
		ar.msg = "the simulator streams only: send stream true"
	}
	if ar.msg != "" {
		tr.Status = http.StatusBadRequest
		writeError(w, tr.Status, ar.msg, "invalid_request_error", "")
		return
	}
	req := &ar.req
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	tr.ID = ar.id
	tr.Model, tr.Stream, tr.MaxTokens = req.Model, true, req.MaxTokens
	tr.Temperature, tr.Seed = ar.raw.Temperature, ar.raw.Seed
	tr.PromptTokens = promptTokens(req)
	tr.Fault = cfg.pickFault(tr.Index)
	if f := r.Header.Get(FaultHeader); f == "none" {
		tr.Fault = ""
	} else if f != "" {
		tr.Fault = f
	}
	if tr.Fault != "" && !isFault(tr.Fault) {
		tr.Status = http.StatusBadRequest
		writeError(w, tr.Status, "unknown "+FaultHeader+" "+tr.Fault, "invalid_request_error", "")
		return
	}
	c = newCall(s, &cfg, &tr, req, w, r)
	c.wire = ar.wire
	c.run()
}

// appendEvent appends one SSE event, named by an event: line as both
// APIs name them, its data the JSON in data.
func (c *call) appendEvent(typ string, data []byte) {
	c.buf = append(c.buf, "event: "...)
	c.buf = append(c.buf, typ...)
	c.buf = append(c.buf, c.nl+"data: "...)
	c.buf = append(c.buf, data...)
	c.buf = append(c.buf, c.nl+c.nl...)
}

// sendEvent writes one event and returns the instant after its flush.
func (c *call) sendEvent(typ string, data []byte) time.Time {
	c.buf = c.buf[:0]
	c.appendEvent(typ, data)
	return c.flushBuf()
}

// isMidstreamError says whether kind is one of the mid-stream error
// events, which each API sends in its own shape.
func isMidstreamError(kind string) bool {
	switch kind {
	case FaultMidstreamError, FaultMidstreamErrorSpaced, FaultMidstreamErrorVLLM, FaultMidstreamErrorEvent:
		return true
	}
	return false
}

// chatTool is a function tool in chat's shape, for the plan.
func chatTool(name, desc string, params json.RawMessage) openai.Tool {
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object"}`)
	}
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: name, Description: desc, Parameters: params}}
}

// namedTool is chat's tool_choice that forces the function name, as
// namedChoice reads it.
func namedTool(name string) any {
	return map[string]any{"type": "function", "function": map[string]any{"name": name}}
}

// textOf is a content that is a string or an array of typed parts with
// text (input_text, output_text, text), joined.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	out := ""
	for _, p := range parts {
		out += p.Text
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func chatMessage(role, content string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: role, Content: content}
}

func chatCall(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}
