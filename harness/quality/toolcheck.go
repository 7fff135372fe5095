package quality

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/jsonl"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Judge judges one answer of the check's case: a tool case's calls (an
// agent loop's final answer, the text after a step's results, by the
// text checks), any other case's text (Run). A step is from 1 in a loop,
// 0 for a request alone; expect_tool judges the first.
func (c *Check) Judge(s *sample.Sample) sample.Quality {
	if c.Case == nil || !c.Case.IsToolCase() || s.Step > 1 && len(s.ToolCalls) == 0 {
		return c.Run(s.Content, s.Finish)
	}
	r := c.runCalls(s.ToolCalls, s.Content, s.Finish, s.Step <= 1, s.ToolCallsCut)
	if len(s.ToolCalls) == 0 && c.Case.IsLoop() {
		// A loop that answered its first step with text ended there: that
		// text is its final answer, judged as one (else the accuracy
		// objective of a model that never calls would have nothing to judge
		// and vanish from the verdict), beside the call it did not make.
		t := c.Run(s.Content, s.Finish)
		r.MatchChecked, r.Matched = t.MatchChecked, t.Matched
		if t.MatchChecked && !t.Matched {
			r.Detail = join(r.Detail, t.Detail)
		}
	}
	return r
}

// runCalls judges the calls of one answer: each valid (an offered tool,
// arguments that are JSON and valid against its schema), and, on the
// loop's first step, one of them the call expect_tool describes. An
// answer without calls fails both: a tool case asked for a call, and
// text in its place is a wrong answer, not an error of the request.
func (c *Check) runCalls(calls []sample.ToolCall, content, finish string, first, dropped bool) sample.Quality {
	cs := c.Case
	r := sample.Quality{Case: cs.ID, Truncated: finish == "length", ToolChecked: true}
	var errs []string
	if len(calls) == 0 {
		errs = append(errs, "answered with text, not a tool call")
	}
	for _, call := range calls {
		if e := cs.callError(call); e != "" {
			errs = append(errs, e)
		}
	}
	if dropped {
		errs = append(errs, "calls beyond the client's bound were dropped, unchecked")
	}
	r.ToolValid = len(errs) == 0
	r.ToolError = firstOf(errs, 3)
	r.Got = cut(callsText(calls, content))
	r.Expected = cut("a valid call of " + cs.toolNames())
	if e := cs.ExpectTool; first && e != nil {
		r.ToolMatchChecked = true
		r.Expected = cut(e.Text())
		var detail string
		r.ToolMatched, detail = e.match(calls)
		if !r.ToolMatched {
			r.Detail = detail
		}
	}
	if !r.ToolValid {
		r.Detail = join(r.Detail, "tool: "+r.ToolError)
	}
	return r
}

// Unfinished marks q, the quality of an agent loop's last step, when the
// loop ended without a final answer (max_steps reached, or a call it has
// no result to send back for): the final answer is missing, which fails
// the case's answer check.
func (c *Check) Unfinished(q *sample.Quality, why string) {
	q.MatchChecked, q.Matched = true, false
	q.Expected = cut(c.Case.ExpectedText())
	q.Detail = join(q.Detail, "no final answer: "+why)
}

// callError says what makes one call invalid, "" when it is valid. Names
// and arguments come from the server: they are quoted.
func (c *Case) callError(call sample.ToolCall) string {
	t := c.Tool(call.Name)
	switch {
	case t == nil:
		return fmt.Sprintf("calls %q, which the case does not offer (offered: %s)", call.Name, c.toolNames())
	case call.ArgumentsCut:
		return fmt.Sprintf("%s: arguments cut at the capture limit", t.Name)
	}
	doc, _, _, err := ParseJSON(call.Arguments, false)
	if err != nil {
		return fmt.Sprintf("%s: arguments %v", t.Name, err)
	}
	if k := jsonl.RepeatedKey([]byte(call.Arguments)); k != "" {
		// The tool's own parser may keep the other one: not the call checked.
		return fmt.Sprintf("%s: arguments give %q twice", t.Name, k)
	}
	if v := ValidateSchema(t.Schema, doc); v != "" {
		return fmt.Sprintf("%s: arguments fail its parameters schema: %s", t.Name, v)
	}
	return ""
}

// match reports whether one of calls is the expected one, and if not why.
func (e *ExpectTool) match(calls []sample.ToolCall) (bool, string) {
	var named []sample.ToolCall
	var names []string
	for _, call := range calls {
		names = append(names, fmt.Sprintf("%q", call.Name))
		if call.Name == e.Name {
			named = append(named, call)
		}
	}
	if len(named) == 0 {
		if len(calls) == 0 {
			return false, "no call of " + e.Name + ": the answer was text"
		}
		return false, fmt.Sprintf("no call of %s (called %s)", e.Name, strings.Join(names, ", "))
	}
	if e.matcher == nil {
		return true, ""
	}
	detail := ""
	for _, call := range named {
		ok, d := e.matcher.Match(call.Arguments)
		if ok {
			return true, ""
		}
		if detail == "" {
			detail = e.Name + " arguments: " + d
		}
	}
	return false, detail
}

// Text is the expected call as a report shows it:
// get_weather(subset {"city":"Paris"}).
func (e *ExpectTool) Text() string {
	if e.Match.Type == "" {
		return e.Name + "(any arguments)"
	}
	want := (&Case{Expected: e.Expected, Match: e.Match}).ExpectedText()
	if len(e.Expected) == 0 {
		return e.Name + "(" + want + ")"
	}
	return e.Name + "(" + e.Match.Type + " " + want + ")"
}

// callsText shows an answer's calls on one line, or its text when it made
// none.
func callsText(calls []sample.ToolCall, content string) string {
	if len(calls) == 0 {
		return "text: " + strings.TrimSpace(content)
	}
	parts := make([]string, len(calls))
	for i, call := range calls {
		parts[i] = call.Name + "(" + call.Arguments + ")" // escaped where shown
	}
	return strings.Join(parts, "; ")
}

// firstOf joins the first n messages, saying how many more there were.
func firstOf(msgs []string, n int) string {
	if len(msgs) <= n {
		return strings.Join(msgs, "; ")
	}
	return strings.Join(msgs[:n], "; ") + fmt.Sprintf("; and %d more", len(msgs)-n)
}

// toolSchema compiles a tool's parameters once per process, however many
// cases and files offer the same tool: the schemas cache, keyed by the
// canonical form of the schema.
func toolSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	canon, err := Canonical(raw)
	if err != nil {
		return nil, err
	}
	return loadSchemas.compiled("parameters:"+string(canon), func() (*jsonschema.Schema, error) {
		return CompileSchemaJSON("mem:///parameters.json", raw)
	})
}
