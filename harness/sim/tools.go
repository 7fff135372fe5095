package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Tool calls. A request that offers tools is answered with function calls
// instead of text: the calls Config.Tools gives for it (Answers.AddTools:
// the calls a fixture case expects, one agent step after another), each
// generated as tokens like any answer — the name first, then the arguments
// cut as splitTokens cuts text — and framed as one vendor streams them.
// Usage counts every token, whatever the framing; Truth records the calls
// as sent and the instants of the first tool-call delta and of the finish.

// ToolCall is one function call of the simulated model.
type ToolCall struct {
	ID        string // set by the simulator when it sends the call ("" in what a hook returns)
	Name      string
	Arguments string // JSON text, as sent
}

// The tool-call framings (Config.ToolFraming, spec tools=...): each a
// vendor's stream shape for the same calls. The fragment framings send a
// chunk per token, the whole framings a chunk per call when its last token
// is generated (so several tokens ride in one chunk, and usage exceeds the
// token-bearing chunks). Every framing ends with a finish chunk,
// finish_reason "tool_calls", its delta as below.
const (
	// OpenAI's chat-completions stream (the API reference's streamed
	// tool-call chunks): a call's first chunk has its index, id, type and
	// name with arguments "", the next ones its index and a piece of the
	// arguments; the finish chunk's delta is {}.
	ToolsOpenAI = "openai"
	// vLLM (vllm/entrypoints/openai/serving_chat.py): the first chunk has
	// id, type, index and name and no arguments, then fragments as
	// OpenAI's; the finish chunk repeats the last call's index with
	// arguments "" (its "remaining_call", empty when all was streamed):
	// a delta with no new bytes, which is no token.
	ToolsVLLM = "vllm"
	// Ollama's OpenAI compatibility: each call whole in one chunk, with
	// id, index, type, name and arguments, beside role "assistant" and
	// content ""; the finish chunk's delta is role and content "" (as
	// recorded from Ollama's /v1/chat/completions, e.g. in
	// g0t4/ask-openai.nvim's backends/ollama/notes/sses.md; the index
	// came with ollama/ollama#7881). Groq and Mistral send whole calls too.
	ToolsWhole = "whole"
	// Gemini's OpenAI compatibility: each call whole in one chunk, with
	// no index (function, id and type only, as measured in
	// THU-MAIC/OpenMAIC#1556); the finish chunk's delta {}.
	ToolsNoIndex = "noindex"
	// Gemini's other shape (open-webui/computer#224): OpenAI's fragments
	// without index. A call's first chunk has its id and name, the chunks
	// after it continue it, so a reader must start a call at a new id.
	ToolsNoIndexFragments = "noindex_fragments"
)

// ToolFramings lists the framings, as the spec's tools= key accepts them.
var ToolFramings = []string{ToolsOpenAI, ToolsVLLM, ToolsWhole, ToolsNoIndex, ToolsNoIndexFragments}

// toolToken is one generated token of a tool-call answer: a call's name
// (its first token) or a piece of its arguments.
type toolToken struct {
	call int
	name bool
	text string
}

// toolChunk is one planned event: its JSON after call.base, and the tokens
// it carries, due TPOT apart; it goes out when its last token is due.
type toolChunk struct {
	rest string
	toks []toolToken
}

// toolPlan is a tool-call answer, framed before the stream starts so that
// sending it is the same work per chunk as sending text.
type toolPlan struct {
	calls       []ToolCall  // in full as planned, before max_tokens
	toks        []toolToken // every token, in order, cut by max_tokens
	chunks      []toolChunk // toks, framed
	tokens      int
	finishDelta string
}

// toolCalls is the calls req is answered with, or nil for a text answer.
func (c *call) toolCalls() []ToolCall {
	req := c.req
	if len(req.Tools) == 0 {
		return nil
	}
	c.tr.ToolStep = toolSteps(req) + 1
	if c.cfg.Echo || c.tr.Fault == FaultEmptyAnswer || req.ToolChoice == "none" {
		return nil
	}
	hook := c.cfg.Tools
	if hook == nil {
		hook = defaultToolCalls
	}
	return hook(req)
}

// planTools plans the answer to be calls: the first call made wrong or
// broken as drawn, ids given, tokens cut to max_tokens, framing chosen.
func (c *call) planTools(calls []ToolCall) {
	tr := c.tr
	tr.Wrong, tr.InvalidJSON = false, false // they are about text answers
	calls = slices.Clone(calls)
	if tr.ToolWrong {
		calls[0].Arguments = wrongArguments(calls[0].Arguments, toolSchema(c.req, calls[0].Name))
	}
	if tr.ToolBadJSON {
		calls[0].Arguments = breakJSON(calls[0].Arguments)
	}
	framing := c.cfg.toolFraming()
	if c.wire != nil {
		framing = ToolsOpenAI // a chunk per token: the APIs' own events (api.go)
	}
	var toks []toolToken
	for k := range calls {
		calls[k].ID = toolCallID(framing, tr.Index, k)
		toks = append(toks, toolToken{call: k, name: true, text: calls[k].Name})
		for _, piece := range splitTokens(calls[k].Arguments) {
			toks = append(toks, toolToken{call: k, text: piece})
		}
	}
	c.finish = "tool_calls"
	toks = toks[:c.budget(len(toks))]
	c.tools = frameTools(framing, calls, toks)
}

// frameTools lays tokens out in the chunks of a framing, each chunk's
// JSON built in one scratch buffer and kept as one string.
func frameTools(framing string, calls []ToolCall, toks []toolToken) *toolPlan {
	p := &toolPlan{calls: calls, toks: toks, tokens: len(toks), finishDelta: "{}"}
	whole := framing == ToolsWhole || framing == ToolsNoIndex
	var buf, args []byte
	for start := 0; start < len(toks); {
		end := start + 1
		for whole && end < len(toks) && toks[end].call == toks[start].call {
			end++
		}
		group := toks[start:end]
		buf = append(buf[:0], `"choices":[{"index":0,"delta":`...)
		if whole {
			args = args[:0]
			for _, t := range group[1:] { // group[0] is the name
				args = append(args, t.text...)
			}
			buf = appendWhole(buf, framing, calls[group[0].call], group[0].call, args)
		} else {
			buf = appendFragment(buf, framing, calls[group[0].call], group[0])
		}
		buf = append(buf, `,"finish_reason":null}]}`...)
		p.chunks = append(p.chunks, toolChunk{rest: string(buf), toks: group})
		start = end
	}
	switch {
	case framing == ToolsVLLM && len(toks) > 0:
		p.finishDelta = `{"tool_calls":[{"index":` + strconv.Itoa(toks[len(toks)-1].call) + `,"function":{"arguments":""}}]}`
	case framing == ToolsWhole:
		p.finishDelta = `{"role":"assistant","content":""}`
	}
	return p
}

// appendFragment appends the delta of one token in a fragment framing.
func appendFragment(b []byte, framing string, tc ToolCall, tok toolToken) []byte {
	index := func(b []byte) []byte {
		if framing == ToolsNoIndexFragments {
			return b
		}
		b = strconv.AppendInt(append(b, `"index":`...), int64(tok.call), 10)
		return append(b, ',')
	}
	switch {
	case !tok.name:
		b = index(append(b, `{"tool_calls":[{`...))
		b = appendJSONString(append(b, `"function":{"arguments":`...), tok.text)
		return append(b, `}}]}`...)
	case framing == ToolsVLLM:
		b = append(b, `{"tool_calls":[{"id":`...)
		b = appendJSONString(b, tc.ID)
		b = index(append(b, `,"type":"function",`...))
		b = appendJSONString(append(b, `"function":{"name":`...), tok.text)
		return append(b, `}}]}`...)
	default:
		b = index(append(b, `{"tool_calls":[{`...))
		b = append(b, `"id":`...)
		b = appendJSONString(b, tc.ID)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = appendJSONString(b, tok.text)
		return append(b, `,"arguments":""}}]}`...)
	}
}

// appendWhole appends the delta of one whole call: Ollama's with its
// index, Gemini's without.
func appendWhole(b []byte, framing string, tc ToolCall, k int, args []byte) []byte {
	if framing == ToolsNoIndex {
		b = append(b, `{"role":"assistant","tool_calls":[{"function":{"arguments":`...)
		b = appendJSONString(b, string(args))
		b = append(b, `,"name":`...)
		b = appendJSONString(b, tc.Name)
		b = append(b, `},"id":`...)
		b = appendJSONString(b, tc.ID)
		return append(b, `,"type":"function"}]}`...)
	}
	b = append(b, `{"role":"assistant","content":"","tool_calls":[{"id":`...)
	b = appendJSONString(b, tc.ID)
	b = append(b, `,"index":`+strconv.Itoa(k)+`,"type":"function","function":{"name":`...)
	b = appendJSONString(b, tc.Name)
	b = append(b, `,"arguments":`...)
	b = appendJSONString(b, string(args))
	return append(b, `}}]}`...)
}

// toolCallID is call k's id in request i, in the vendor's form.
func toolCallID(framing string, i, k int) string {
	switch framing {
	case ToolsVLLM:
		return fmt.Sprintf("chatcmpl-tool-sim%d-%d", i, k)
	case ToolsNoIndex, ToolsNoIndexFragments:
		return fmt.Sprintf("function-call-sim%d-%d", i, k)
	}
	return fmt.Sprintf("call_sim%d_%d", i, k)
}

func (c Config) toolFraming() string {
	if c.ToolFraming == "" {
		return ToolsOpenAI
	}
	return c.ToolFraming
}

// sendTool sends one planned chunk and counts what it carried; run's end
// records the calls from the count (see toolPlan.callsOf).
func (c *call) sendTool(ch toolChunk) {
	ready := time.Now()
	var now time.Time
	if c.wire != nil {
		c.buf = c.buf[:0]
		c.wire.tool(c, ch)
		now = c.flushBuf()
	} else {
		now = c.chunk(ch.rest)
	}
	if c.failed {
		return
	}
	tr := c.tr
	if tr.FirstReady.IsZero() {
		tr.FirstReady = ready
	}
	tr.OutputTokens += len(ch.toks)
	tr.ToolChunks++
	c.toolSent += len(ch.toks)
	for _, at := range [...]*time.Time{&tr.FirstToken, &tr.FirstAnswer, &tr.FirstTool} {
		if at.IsZero() {
			*at = now
		}
	}
}

// callsOf is the calls the first n tokens make: those sent, when a stream
// was cut short, or all of them.
func (p *toolPlan) callsOf(n int) []ToolCall {
	var out []ToolCall
	var args []strings.Builder
	for _, t := range p.toks[:n] {
		if t.call == len(out) {
			out = append(out, ToolCall{ID: p.calls[t.call].ID})
			args = append(args, strings.Builder{})
		}
		if t.name {
			out[t.call].Name = t.text
		} else {
			args[t.call].WriteString(t.text)
		}
	}
	for k := range out {
		out[k].Arguments = args[k].String()
	}
	return out
}

// toolSteps is how many agent steps req reports done: the runs of "tool"
// messages after its last user message (parallel calls' results are one
// run, with or without the assistant's tool_calls message before them).
func toolSteps(req *openai.ChatCompletionRequest) int {
	n, prev := 0, ""
	for _, m := range req.Messages[lastUser(req)+1:] {
		if m.Role == openai.ChatMessageRoleTool && prev != openai.ChatMessageRoleTool {
			n++
		}
		prev = m.Role
	}
	return n
}

// lastUser is the index of req's last user message, -1 if none.
func lastUser(req *openai.ChatCompletionRequest) int {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == openai.ChatMessageRoleUser {
			return i
		}
	}
	return -1
}

// question is what req asks: its last user message, so that a
// conversation's or an agent loop's later turns find their case; with no
// user message, its last message.
func question(req *openai.ChatCompletionRequest) string {
	if i := lastUser(req); i >= 0 {
		return req.Messages[i].Content
	}
	if n := len(req.Messages); n > 0 {
		return req.Messages[n-1].Content
	}
	return ""
}
