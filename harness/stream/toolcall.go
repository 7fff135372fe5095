package stream

import (
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/sample"
)

// Bounds on what a stream's tool calls can make the client keep: calls
// beyond maxToolCalls are dropped (and the sample says so), names and ids
// are cut at maxMeta bytes, and the arguments of all calls together share
// the content limit (Client's MaxContent).
const (
	maxToolCalls = sample.MaxToolCalls
	maxMeta      = sample.MaxToolName
)

// toolAssembler joins a stream's tool-call deltas into calls, as the
// servers frame them:
//
//   - OpenAI, vLLM, SGLang, llama.cpp, TGI, Anthropic: the id and name
//     first, then argument fragments, every delta with the call's index;
//   - vLLM (and SGLang) repeat the call in the finish chunk with
//     arguments "": a delta that adds no name or argument bytes adds
//     nothing, and is not a token;
//   - Ollama, Groq, Mistral: the whole call in one delta, with an index
//     (Ollama: 0 for every call of a parallel batch, told apart by their
//     ids, ollama#15457);
//   - Gemini, Ollama before 0.5: whole calls without an index.
//
// A delta with an index goes to the last call with that index, unless it
// brings another id (a new call). A delta without one continues the last
// call, unless it starts another: an id other than the last call's, or a
// name when the last call has one already (other than a repeat of it with
// no arguments). Name fragments are joined, as OpenAI's SDKs join them.
type toolAssembler struct {
	calls       []toolCall
	last        int  // the call a delta without index continues
	lastDropped bool // that call was over maxToolCalls
	room        int  // argument bytes left to keep
	dropped     bool // calls were dropped
}

type toolCall struct {
	sample.ToolCall      // Index, ID, Name
	explicit        bool // Index is the server's
	args            []byte
}

func newToolAssembler(room int) toolAssembler { return toolAssembler{last: -1, room: room} }

// add takes a delta's tool calls (and its legacy function_call) and
// reports whether they brought new name or argument bytes.
func (a *toolAssembler) add(d *delta) bool {
	fresh := false
	for i := range d.ToolCalls {
		fresh = a.delta(&d.ToolCalls[i]) || fresh
	}
	if d.FunctionCall != nil {
		fresh = a.delta(&toolDelta{Function: *d.FunctionCall}) || fresh
	}
	return fresh
}

func (a *toolAssembler) delta(d *toolDelta) bool {
	// Bounded first, so that a long id or name sent again is seen as the
	// same one.
	id, name, args := clip(d.ID, maxMeta), clip(d.Function.Name, maxMeta), string(d.Function.Arguments)
	c := a.target(d.Index, id, name, args)
	if c == nil {
		return name != "" || args != "" // a dropped call's bytes were still sent
	}
	if c.ID == "" {
		c.ID = id
	}
	fresh := false
	if name != "" && name != c.Name {
		c.Name = clip(c.Name+name, maxMeta)
		fresh = true
	}
	if args != "" {
		keep := min(len(args), a.room)
		c.args = append(c.args, args[:keep]...)
		a.room -= keep
		c.ArgumentsCut = c.ArgumentsCut || keep < len(args)
		fresh = true
	}
	return fresh
}

// target is the call a delta belongs to, opened if new; nil when it is
// dropped.
func (a *toolAssembler) target(index *int, id, name, args string) *toolCall {
	if index != nil {
		for j := len(a.calls) - 1; j >= 0; j-- {
			c := &a.calls[j]
			if c.explicit && c.Index == *index {
				if id != "" && c.ID != "" && id != c.ID {
					break // the same index, another call
				}
				a.last, a.lastDropped = j, false
				return c
			}
		}
		return a.open(*index, true)
	}
	if a.lastDropped {
		return nil
	}
	if a.last >= 0 && !starts(&a.calls[a.last], id, name, args) {
		return &a.calls[a.last]
	}
	return a.open(len(a.calls), false)
}

// starts reports whether a delta without index starts a call after c.
func starts(c *toolCall, id, name, args string) bool {
	if id != "" {
		return id != c.ID
	}
	repeat := name == c.Name && args == ""
	return name != "" && c.Name != "" && !repeat
}

func (a *toolAssembler) open(index int, explicit bool) *toolCall {
	if len(a.calls) == maxToolCalls {
		a.dropped, a.lastDropped = true, true
		return nil
	}
	a.calls = append(a.calls, toolCall{ToolCall: sample.ToolCall{Index: index}, explicit: explicit})
	a.last, a.lastDropped = len(a.calls)-1, false
	return &a.calls[a.last]
}

// into puts the calls in s.
func (a *toolAssembler) into(s *sample.Sample) {
	if len(a.calls) == 0 {
		return
	}
	s.ToolCalls = make([]sample.ToolCall, len(a.calls))
	for i, c := range a.calls {
		s.ToolCalls[i] = c.ToolCall
		s.ToolCalls[i].Name, s.ToolCalls[i].ID = visible(c.Name), visible(c.ID)
		s.ToolCalls[i].Arguments = string(c.args)
	}
	s.ToolCallsCut = a.dropped
}

// visible is a name or id a server sent, as the samples file may hold it:
// one holding a control character, an escape or bytes that are not UTF-8
// is kept in its escaped form (get\x1b[2Jweather), within maxMeta, so
// that the record reads back and shows what was sent; no tool is named
// so, and the quality check counts the call invalid.
func visible(name string) string {
	if escape.CheckLine(name) == nil {
		return name
	}
	return clip(escape.Text(name), maxMeta)
}

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
