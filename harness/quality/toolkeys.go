package quality

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
)

// The keys of a tool case beyond its tools (tools.go): what it sends, what
// it expects, an agent loop's results, and the reference calls.

// readChoice checks tool_choice: "auto", "required", or the function to
// call, one of the tools offered. "none" is refused: a tool case is
// judged by its call.
func readChoice(c *Case, fail func(key, format string, a ...any)) {
	raw := c.toolIn.choice
	if len(raw) == 0 {
		return
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		if mode != "auto" && mode != "required" {
			fail("tool_choice", `%q (allowed: "auto", "required", or {"type": "function", "function": {"name": …}}; "none" would leave a tool case nothing to judge)`, mode)
			return
		}
		c.ToolChoice = raw
		return
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &named) != nil || named.Type != "function" {
		fail("tool_choice", `want "auto", "required" or {"type": "function", "function": {"name": …}}`)
		return
	}
	if c.Tool(named.Function.Name) == nil {
		fail("tool_choice.function.name", "%q is not a tool the case offers (offered: %s)", named.Function.Name, c.toolNames())
		return
	}
	c.ToolChoice = raw
}

// readExpect checks expect_tool: the name of an offered tool, and a
// matcher of its arguments' JSON.
func readExpect(c *Case, fail func(key, format string, a ...any)) {
	if len(c.toolIn.expect) == 0 {
		return
	}
	obj, err := objectOf(c.toolIn.expect, []string{"name", "arguments"})
	if err != nil {
		fail("expect_tool", `%v (want {"name": "get_weather", "arguments": {"type": "subset", "expected": {…}}})`, err)
		return
	}
	e := &ExpectTool{}
	if json.Unmarshal(obj["name"], &e.Name) != nil || c.Tool(e.Name) == nil {
		fail("expect_tool.name", "%s is not a tool the case offers (offered: %s)", string(obj["name"]), c.toolNames())
		return
	}
	if args, ok := obj["arguments"]; ok {
		spec, err := objectOf(args, nil)
		if err != nil {
			fail("expect_tool.arguments", `%v (want a matcher like {"type": "json_equal", "expected": {…}})`, err)
			return
		}
		e.Expected = spec["expected"]
		delete(spec, "expected")
		b, _ := json.Marshal(spec)
		if err := json.Unmarshal(b, &e.Match); err != nil {
			fail("expect_tool.arguments", "%v", err)
			return
		}
		m, err := NewMatcher(e.Match, e.Expected)
		if err != nil {
			fail("expect_tool.arguments."+specKey(err), "%s", specMsg(err))
			return
		}
		e.matcher = m
	}
	c.ExpectTool = e
}

// specKey and specMsg split a matcher's error into its key (type,
// pattern, expected) and what is wrong.
func specKey(err error) string {
	if se, ok := err.(*SpecError); ok {
		return strings.TrimPrefix(se.Key, "match.")
	}
	return "type"
}

func specMsg(err error) string {
	if se, ok := err.(*SpecError); ok {
		return se.Msg
	}
	return err.Error()
}

// readResults checks an agent loop's tool_results (a result for every
// tool offered, a model may call any) and max_steps.
func readResults(c *Case, fail func(key, format string, a ...any)) {
	in := c.toolIn
	if len(in.results) == 0 {
		if len(in.maxSteps) > 0 {
			fail("max_steps", "given without tool_results: a tool case without results makes one call (allowed: with tool_results, an agent loop)")
		}
		return
	}
	res, err := objectOf(in.results, nil)
	if err != nil || len(res) == 0 {
		fail("tool_results", `want an object of each tool's result, {"get_weather": {…}}`)
		return
	}
	for name := range res {
		if c.Tool(name) == nil {
			fail("tool_results."+name, "not a tool the case offers (offered: %s)", c.toolNames())
			return
		}
	}
	for _, t := range c.Tools {
		if _, ok := res[t.Name]; !ok {
			fail("tool_results", "no result for %s, which the case offers: a model may call any tool offered", t.Name)
			return
		}
	}
	c.ToolResults, c.MaxSteps = res, DefaultMaxSteps
	if len(in.maxSteps) > 0 {
		if json.Unmarshal(in.maxSteps, &c.MaxSteps) != nil || c.MaxSteps < 1 || c.MaxSteps > sample.MaxSteps {
			fail("max_steps", "%s (allowed: a whole number from 1 to %d, the model calls a loop may make)", string(in.maxSteps), sample.MaxSteps)
		}
	}
}

// readCalls checks answer_calls, the reference: one call per step, each
// of an offered tool with arguments valid against its schema, the first
// passing expect_tool, and the loop's final answer within max_steps.
func readCalls(c *Case, fail func(key, format string, a ...any)) {
	var list []json.RawMessage
	if err := json.Unmarshal(c.toolIn.calls, &list); err != nil || len(list) == 0 {
		fail("answer_calls", `missing: the reference calls, one per agent step ([{"name": "get_weather", "arguments": {…}}]); the simulator makes them, and they prove the checks can pass`)
		return
	}
	switch {
	case !c.IsLoop() && len(list) > 1:
		fail("answer_calls", "%d calls, one per agent step, but the case has no tool_results: a plain tool case makes one call", len(list))
		return
	case c.IsLoop() && c.MaxSteps < len(list)+1:
		fail("max_steps", "%d, but the reference takes %d steps (its %d calls, then the final answer)", c.MaxSteps, len(list)+1, len(list))
	}
	for i, item := range list {
		key := fmt.Sprintf("answer_calls[%d]", i)
		obj, err := objectOf(item, []string{"name", "arguments"})
		if err != nil {
			fail(key, "%v", err)
			return
		}
		var call Call
		if json.Unmarshal(obj["name"], &call.Name) != nil || c.Tool(call.Name) == nil {
			fail(key+".name", "%s is not a tool the case offers (offered: %s)", string(obj["name"]), c.toolNames())
			return
		}
		call.Arguments = obj["arguments"]
		c.AnswerCalls = append(c.AnswerCalls, call)
	}
	chk := NewCheck(c)
	for i, call := range c.AnswerCalls {
		r := chk.runCalls([]sample.ToolCall{{Name: call.Name, Arguments: string(call.Arguments)}}, "", "tool_calls", i == 0, false)
		if !r.ToolValid {
			fail(fmt.Sprintf("answer_calls[%d].arguments", i), "fails its tool's checks: %s", r.ToolError)
		}
		if i == 0 && r.ToolMatchChecked && !r.ToolMatched {
			fail("answer_calls[0]", "fails expect_tool: %s", r.Detail)
		}
	}
}

// refuseText reports the text keys of a plain tool case.
func refuseText(c *Case, fail func(key, format string, a ...any)) {
	given := map[string]bool{"match": c.Match.Type != "" || len(c.Match.Options) > 0, "expected": len(c.Expected) > 0,
		"schema": c.Schema != "", "answer": c.Answer != "", "wrong_answer": c.WrongAnswer != ""}
	for _, k := range textKeys {
		if given[k] {
			fail(k, "a tool case without tool_results is judged by its call (expect_tool); %s judges an agent loop's final answer", k)
		}
	}
}
