package stream

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/sample"
)

// The reference the fuzz tests hold the client to: an event stream read
// from the SSE spec alone, and what llmsla must make of its events read
// from the definitions in METRICS.md alone, written apart from the client
// (and as plainly as can be), so that a mistake in either shows as a
// difference.

// refEvent is an event as the SSE spec dispatches it.
type refEvent struct {
	typ  string
	data string
}

// refParse is a reference reader of an event stream, written from the
// spec (html.spec.whatwg.org, "Event stream interpretation") and nothing
// else: a leading BOM is dropped; lines end at CRLF, LF or CR; a blank
// line dispatches the event if its data buffer is not empty (its last LF
// removed); ":" starts a comment; "field: value" loses one space after the
// colon; a line without a colon is a field with an empty value; data
// appends value+LF, event sets the type; id, retry and others do not
// matter here. What follows the last line end is not a line, and an event
// without its blank line at the end of the stream is not dispatched.
func refParse(body string) []refEvent {
	body = strings.TrimPrefix(body, "\ufeff")
	var lines []string
	for {
		i := strings.IndexAny(body, "\r\n")
		if i < 0 {
			break // no line end: not a line
		}
		lines = append(lines, body[:i])
		if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
			i++
		}
		body = body[i+1:]
	}
	var out []refEvent
	var data strings.Builder
	typ := ""
	for _, line := range lines {
		switch {
		case line == "":
			if data.Len() > 0 {
				out = append(out, refEvent{typ, strings.TrimSuffix(data.String(), "\n")})
			}
			data.Reset()
			typ = ""
			continue
		case line[0] == ':':
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "data":
			data.WriteString(value + "\n")
		case "event":
			typ = value
		}
	}
	return out
}

// refOutcome is what llmsla should report for the events, by METRICS.md:
// an "error" event, a chunk with an error or an x_groq.error is
// midstream_error; data that is not JSON, or usage no request can have,
// is protocol; [DONE] or a finish_reason ends well, anything else is
// truncated; a good end with finish_reason content_filter is
// content_filter, and with no answer token empty_answer.
type refOutcome struct {
	kind              sample.ErrorKind
	content           string
	chunks            int
	finish            string
	output, reasoning int
	source            sample.TokenSource
	cached            *int
	calls             []sample.ToolCall
	callsCut          bool
	toolToken         bool // a tool-call delta brought new name or argument bytes
}

// refUsage is the usage figures seen: the last of each the server gave.
type refUsage struct {
	seen                      bool
	prompt, completion, total int
	reasoning                 int
	cached, cacheN            *int
}

func refOutcomeOf(events []refEvent) refOutcome {
	var o refOutcome
	var u refUsage
	tools := refTools{cur: -1}
	answers, thoughts, done := 0, 0, false
events:
	for _, ev := range events {
		if ev.typ == "error" {
			return refOutcome{kind: sample.KindMidstream}
		}
		data := strings.TrimSpace(ev.data)
		switch data {
		case "":
			continue
		case "[DONE]":
			done = true
			break events
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return refOutcome{kind: sample.KindProtocol}
		}
		set := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
		if set(c.Error) || c.Object == "error" || (c.XGroq != nil && set(c.XGroq.Error)) {
			return refOutcome{kind: sample.KindMidstream}
		}
		if !u.read(&c) {
			return refOutcome{kind: sample.KindProtocol}
		}
		for _, ch := range c.Choices {
			d := ch.Delta
			fresh := false
			for _, td := range d.ToolCalls {
				fresh = tools.apply(td) || fresh
			}
			if d.FunctionCall != nil {
				fresh = tools.apply(toolDelta{Function: *d.FunctionCall}) || fresh
			}
			answer := d.Content.Text != "" || d.Refusal != "" || fresh
			thinking := d.ReasoningContent != "" || d.Reasoning != "" || d.Content.Thinking != ""
			if answer || thinking {
				o.chunks++
			}
			if answer {
				answers++
			} else if thinking {
				thoughts++
			}
			o.toolToken = o.toolToken || fresh
			o.content += d.Content.Text
			if ch.FinishReason != "" {
				o.finish = string(ch.FinishReason)
			}
		}
	}
	switch {
	case !done && o.finish == "":
		return refOutcome{kind: sample.KindTruncated}
	case o.finish == "content_filter":
		return refOutcome{kind: sample.KindContentFilter}
	case answers == 0:
		return refOutcome{kind: sample.KindEmptyAnswer}
	}
	o.calls, o.callsCut = tools.result()
	o.cached = u.cached
	if o.cached == nil {
		o.cached = u.cacheN
	}
	o.count(u, answers, thoughts)
	return o
}

// read takes a chunk's usage and timings; false when a figure is
// impossible (negative, or more cached tokens than the prompt).
func (u *refUsage) read(c *chunk) bool {
	if c.Timings != nil && c.Timings.CacheN != nil {
		if *c.Timings.CacheN < 0 {
			return false
		}
		u.cacheN = c.Timings.CacheN
	}
	us := c.Usage
	if us == nil && c.XGroq != nil {
		us = c.XGroq.Usage
	}
	if us == nil {
		return true
	}
	cached := us.PromptCacheHitTokens
	if us.PromptTokensDetails != nil && us.PromptTokensDetails.CachedTokens != nil {
		cached = us.PromptTokensDetails.CachedTokens
	}
	if us.PromptTokens < 0 || us.CompletionTokens < 0 || us.TotalTokens < 0 ||
		(us.CompletionTokensDetails != nil && us.CompletionTokensDetails.ReasoningTokens < 0) ||
		(cached != nil && (*cached < 0 || *cached > us.PromptTokens)) {
		return false
	}
	u.seen, u.prompt, u.completion, u.total = true, us.PromptTokens, us.CompletionTokens, us.TotalTokens
	if us.CompletionTokensDetails != nil {
		u.reasoning = us.CompletionTokensDetails.ReasoningTokens
	}
	if cached != nil {
		u.cached = cached
	}
	return true
}

// count: output tokens are the usage's completion tokens, plus the hidden
// reasoning a total beyond prompt + completion says (when the usage gives
// no reasoning count and the excess is not the cached tokens), plus the reasoning chunks when the usage counts
// fewer than the chunks seen; never fewer than the token chunks; the
// chunks themselves without usage.
func (o *refOutcome) count(u refUsage, answers, thoughts int) {
	o.reasoning = thoughts
	if u.reasoning > 0 {
		o.reasoning = u.reasoning
	}
	o.output, o.source = o.chunks, sample.TokensEstimated
	if !u.seen {
		return
	}
	o.output, o.source = u.completion, sample.TokensUsage
	hidden := u.total - u.prompt - u.completion
	if u.reasoning == 0 && hidden > 0 && (u.cached == nil || *u.cached != hidden) {
		o.output += hidden
		o.reasoning = hidden
	} else if thoughts > 0 && o.output < o.reasoning+answers {
		o.output += o.reasoning
		o.source = sample.TokensEstimated
	}
	if o.chunks > o.output {
		o.output, o.source = o.chunks, sample.TokensEstimated
	}
}

// refTools assembles tool calls by the rule of METRICS.md (tool_calls):
// deltas are joined by index (a delta with another id at the same index
// is another call); a delta without index continues the last call unless
// it has another id, or a name where the last call has one (but for a
// repeat of that name with no arguments); names and ids are kept to 256
// bytes, and 128 calls; a delta adds a token when it brings name or
// argument bytes not there before.
type refTools struct {
	calls []refCall
	cur   int // the last call; -1 none yet, -2 dropped
	cut   bool
}

type refCall struct {
	sample.ToolCall
	explicit bool
}

func (r *refTools) apply(d toolDelta) bool {
	id, name, args := refClip(d.ID), refClip(d.Function.Name), string(d.Function.Arguments)
	i := r.find(d.Index, id, name, args)
	if i < 0 {
		return name != "" || args != ""
	}
	c := &r.calls[i]
	if c.ID == "" {
		c.ID = id
	}
	fresh := args != ""
	if name != "" && name != c.Name {
		c.Name = refClip(c.Name + name)
		fresh = true
	}
	c.Arguments += args
	return fresh
}

// find is the position of the call the delta goes to, opened if new; -1
// when it is dropped.
func (r *refTools) find(index *int, id, name, args string) int {
	if index != nil {
		at := -1
		for j, c := range r.calls {
			if c.explicit && c.Index == *index {
				at = j
			}
		}
		if at >= 0 && (id == "" || r.calls[at].ID == "" || id == r.calls[at].ID) {
			r.cur = at
			return at
		}
		return r.open(*index, true)
	}
	switch {
	case r.cur == -2:
		return -1
	case r.cur == -1:
		return r.open(len(r.calls), false)
	}
	last := r.calls[r.cur]
	other := id != "" && id != last.ID
	named := id == "" && name != "" && last.Name != "" && !(name == last.Name && args == "")
	if other || named {
		return r.open(len(r.calls), false)
	}
	return r.cur
}

func (r *refTools) open(index int, explicit bool) int {
	if len(r.calls) == 128 {
		r.cur, r.cut = -2, true
		return -1
	}
	r.calls = append(r.calls, refCall{ToolCall: sample.ToolCall{Index: index}, explicit: explicit})
	r.cur = len(r.calls) - 1
	return r.cur
}

func (r *refTools) result() ([]sample.ToolCall, bool) {
	var out []sample.ToolCall
	for _, c := range r.calls {
		out = append(out, c.ToolCall)
	}
	return out, r.cut
}

func refClip(s string) string {
	for len(s) > 256 {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
