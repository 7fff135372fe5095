package quality

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Tool cases and agent loops. A case that offers tools (its "tools" key)
// is a tool case: its answer is the calls the model makes, judged by
// Check.Judge (toolcheck.go) — every call names an offered tool, with
// arguments that parse as JSON and are valid against that tool's
// parameters schema, and one is the call expect_tool describes. A tool
// case with tool_results is an agent loop: after each step's calls the
// harness (package load) sends the case's result for each call back and
// asks again, up to max_steps model calls, and the loop's final answer is
// judged as a text case's answer is (match, expected, answer,
// wrong_answer). LoadCases checks all of it, and that the reference calls
// (answer_calls, which the simulator makes) pass, before any request.

// Tool is one function a case offers, in OpenAI's chat-completions format
// ({"type": "function", "function": {"name", "description",
// "parameters", "strict"}}): in a fixture that object, or the path of a
// JSON file holding it, relative to the repository root as schema is.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // the JSON Schema of the arguments, as sent
	Strict      bool
	File        string             // the file it was read from, "" when written in the case
	Schema      *jsonschema.Schema // Parameters compiled, once per run
}

// Call is a reference call of a tool case: what its model calls at one
// agent step (the simulator makes it).
type Call struct {
	Name      string
	Arguments json.RawMessage // a JSON object
}

// ExpectTool is the call a tool case expects: a call of Name whose
// arguments (their JSON text) pass the matcher Match and Expected build,
// any arguments when Match.Type is "".
type ExpectTool struct {
	Name     string
	Match    MatchSpec
	Expected json.RawMessage
	matcher  Matcher
}

// DefaultMaxSteps is an agent loop's max_steps when its case gives none.
const DefaultMaxSteps = 10

// maxToolFile bounds a tool file: a definition, not a data set.
const maxToolFile = 1 << 20

// toolInput is a tool case's keys as written; validateTools reads them
// into the Case's fields.
type toolInput struct {
	tools, choice, expect, calls, results, maxSteps json.RawMessage
}

// toolKeys are a case's keys for tools and agent loops, in caseKeys.
var toolKeys = []string{"tools", "tool_choice", "expect_tool", "answer_calls", "tool_results", "max_steps"}

// toolKey keeps the raw value of a tool key for validateTools; false for
// any other key.
func (c *Case) toolKey(k string, v json.RawMessage) bool {
	in := &c.toolIn
	dst := map[string]*json.RawMessage{"tools": &in.tools, "tool_choice": &in.choice, "expect_tool": &in.expect,
		"answer_calls": &in.calls, "tool_results": &in.results, "max_steps": &in.maxSteps}[k]
	if dst == nil {
		return false
	}
	*dst = v
	return true
}

// IsToolCase reports whether the case offers tools.
func (c *Case) IsToolCase() bool { return len(c.Tools) > 0 || len(c.toolIn.tools) > 0 }

// IsLoop reports whether the case is an agent loop: a tool case that gives
// the tools' results.
func (c *Case) IsLoop() bool { return len(c.ToolResults) > 0 }

// Tool returns the offered tool of that name, nil if none.
func (c *Case) Tool(name string) *Tool {
	for i := range c.Tools {
		if c.Tools[i].Name == name {
			return &c.Tools[i]
		}
	}
	return nil
}

// toolNames lists the offered tools, for messages.
func (c *Case) toolNames() string {
	names := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// textKeys are what judges a text answer: a plain tool case's answer is
// its call, so they belong to an agent loop's final answer only.
var textKeys = []string{"match", "expected", "schema", "answer", "wrong_answer"}

// validateTools checks a case's tool keys and fills its tool fields. It
// reports whether the case is a tool case.
func validateTools(c *Case, root string, fail func(key, format string, a ...any)) bool {
	in := c.toolIn
	if len(in.tools) == 0 {
		for _, k := range toolKeys[1:] {
			if c.toolKeyGiven(k) {
				fail(k, "given without tools (allowed: with tools, the functions the case offers)")
			}
		}
		return false
	}
	c.Tools = readTools(in.tools, root, fail)
	if len(c.Tools) == 0 {
		return true
	}
	readChoice(c, fail)
	readExpect(c, fail)
	readResults(c, fail)
	readCalls(c, fail)
	return true
}

// toolKeyGiven reports whether the case wrote tool key k.
func (c *Case) toolKeyGiven(k string) bool {
	in := c.toolIn
	return len(map[string]json.RawMessage{"tools": in.tools, "tool_choice": in.choice, "expect_tool": in.expect,
		"answer_calls": in.calls, "tool_results": in.results, "max_steps": in.maxSteps}[k]) > 0
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// readTools reads the tools key: each tool written in the case or named
// by its file, checked and its parameters compiled.
func readTools(raw json.RawMessage, root string, fail func(key, format string, a ...any)) []Tool {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		fail("tools", `want a non-empty array of tools ({"type": "function", "function": {"name", "parameters", …}}) or paths of JSON files holding one`)
		return nil
	}
	var out []Tool
	ok := true
	for i, item := range list {
		key := fmt.Sprintf("tools[%d]", i)
		t, good := readTool(item, root, key, fail)
		if !good {
			ok = false
			continue
		}
		if slices.ContainsFunc(out, func(o Tool) bool { return o.Name == t.Name }) {
			fail(key+".function.name", "%q offered twice (allowed: each tool once)", t.Name)
			ok = false
			continue
		}
		out = append(out, t)
	}
	if !ok {
		return nil
	}
	return out
}

// readTool reads one tool, from the case or from its file.
func readTool(item json.RawMessage, root, key string, fail func(key, format string, a ...any)) (Tool, bool) {
	var t Tool
	var path string
	if json.Unmarshal(item, &path) == nil {
		t.File = filepath.Join(root, filepath.FromSlash(path))
		b, err := readBounded(t.File, maxToolFile)
		if err != nil {
			fail(key, "%s: %v (paths are relative to the repo root %s)", path, err, root)
			return t, false
		}
		// The file's keys are named within it, at the case's key.
		outer, at := fail, key
		fail = func(k, format string, a ...any) {
			inner := strings.TrimPrefix(strings.TrimPrefix(k, at), ".")
			if inner == "" {
				inner = "the tool"
			}
			outer(at, "%s: %s: %s", path, inner, fmt.Sprintf(format, a...))
		}
		item = b
	}
	obj, err := objectOf(item, []string{"type", "function"})
	if err != nil {
		fail(key, "%v", err)
		return t, false
	}
	var typ string
	if json.Unmarshal(obj["type"], &typ) != nil || typ != "function" {
		fail(key+".type", `want "function" (the chat-completions tool format)`)
		return t, false
	}
	fn, err := objectOf(obj["function"], []string{"name", "description", "parameters", "strict"})
	if err != nil {
		fail(key+".function", "%v", err)
		return t, false
	}
	if json.Unmarshal(fn["name"], &t.Name) != nil || !toolNameRE.MatchString(t.Name) {
		fail(key+".function.name", "want a name of 1 to 64 letters, digits, _ or - (as the API allows)")
		return t, false
	}
	if d, ok := fn["description"]; ok && json.Unmarshal(d, &t.Description) != nil {
		fail(key+".function.description", "want a string")
		return t, false
	}
	if s, ok := fn["strict"]; ok && json.Unmarshal(s, &t.Strict) != nil {
		fail(key+".function.strict", "want true or false")
		return t, false
	}
	return t, readParameters(&t, fn["parameters"], key+".function.parameters", fail)
}

// readParameters checks and compiles a tool's parameters schema: a JSON
// Schema of type object, as function arguments are an object.
func readParameters(t *Tool, raw json.RawMessage, key string, fail func(key, format string, a ...any)) bool {
	if len(raw) == 0 {
		fail(key, "missing: a tool needs a parameters schema, to validate the arguments of its calls (allowed: a JSON Schema of type object)")
		return false
	}
	var doc map[string]any
	if json.Unmarshal(raw, &doc) != nil || doc["type"] != "object" {
		fail(key, `want a JSON Schema of type object ({"type": "object", "properties": {…}}): function arguments are an object`)
		return false
	}
	s, err := toolSchema(raw)
	if err != nil {
		fail(key, "does not compile: %v", err)
		return false
	}
	t.Parameters, t.Schema = raw, s
	return true
}

// objectOf decodes a JSON object, refusing keys outside allowed (nil:
// any key), so that a misspelt key is named rather than dropped.
func objectOf(raw json.RawMessage, allowed []string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("want a JSON object")
	}
	if allowed != nil {
		for k := range m {
			if !slices.Contains(allowed, k) {
				return nil, fmt.Errorf("unknown key %q (allowed: %s)", k, strings.Join(allowed, ", "))
			}
		}
	}
	return m, nil
}

// readBounded reads a file of at most max bytes; a larger one is refused
// rather than read whole.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("more than %d bytes (allowed: at most %d)", max, max)
	}
	return b, err
}
