package quality

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// The tool of the tests below, written in a case and in a file.
const (
	weatherTool = `{"type":"function","function":{"name":"get_weather","description":"Weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string","minLength":1},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"],"additionalProperties":false}}}`
	toolLine    = `{"id":"w1","messages":[{"role":"user","content":"Weather in Paris?"}],"tools":[` + weatherTool + `,"tools/convert.json"],"expect_tool":{"name":"get_weather","arguments":{"type":"subset","expected":{"city":"Paris"}}},"answer_calls":[{"name":"get_weather","arguments":{"city":"Paris","unit":"celsius"}}]}`
	loopLine    = `{"id":"loop","messages":[{"role":"user","content":"Weather in Paris, in fahrenheit?"}],"tools":[` + weatherTool + `,"tools/convert.json"],"tool_results":{"get_weather":{"temp_c":18},"convert":{"value":64.4}},"max_steps":4,"expect_tool":{"name":"get_weather"},"answer_calls":[{"name":"get_weather","arguments":{"city":"Paris"}},{"name":"convert","arguments":{"value":18}}],"expected":"64","match":{"type":"contains"},"answer":"It is 64 F.","wrong_answer":"It is 18 F."}`
	convertFile = `{"type":"function","function":{"name":"convert","parameters":{"type":"object","properties":{"value":{"type":"number"}},"required":["value"]}}}`
)

// loadTools writes lines (and the tool files) in a module and loads them.
func loadTools(t *testing.T, files map[string]string, lines ...string) ([]Case, string, error) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/x\n")
	writeFile(t, dir, "tools/convert.json", convertFile)
	for name, body := range files {
		writeFile(t, dir, name, body)
	}
	p := writeFile(t, dir, "fixtures/cases.jsonl", strings.Join(lines, "\n")+"\n")
	cs, err := LoadCases(p)
	return cs, p, err
}

func TestLoadToolCases(t *testing.T) {
	cs, _, err := loadTools(t, nil, toolLine, loopLine)
	require.NoError(t, err)
	plain, loop := cs[0], cs[1]
	require.Len(t, plain.Tools, 2)
	assert.Equal(t, "convert", plain.Tools[1].Name)
	assert.NotEmpty(t, plain.Tools[1].File, "read from its file")
	assert.NotNil(t, plain.Tools[0].Schema)
	assert.Same(t, plain.Tools[0].Schema, loop.Tools[0].Schema, "one schema compiled once per run, whichever case offers it")
	assert.True(t, plain.IsToolCase() && !plain.IsLoop())
	assert.True(t, loop.IsLoop())
	assert.Equal(t, 4, loop.MaxSteps)
	assert.Equal(t, `get_weather(subset {"city":"Paris"})`, plain.ExpectTool.Text())
	assert.Len(t, loop.AnswerCalls, 2)
}

// TestLoadToolCasesErrors: every way a tool case can be wrong is a
// file:line error naming the key, before any request.
func TestLoadToolCasesErrors(t *testing.T) {
	line := func(base, old, new string) string {
		if !strings.Contains(base, old) {
			panic(old)
		}
		return strings.Replace(base, old, new, 1)
	}
	noParams := `{"type":"function","function":{"name":"get_weather"}}`
	cases := map[string]struct {
		line  string
		files map[string]string
		want  string
	}{
		"tool without parameters": {line(toolLine, weatherTool, noParams), nil,
			"tools[0].function.parameters: missing: a tool needs a parameters schema"},
		"parameters not an object schema": {line(toolLine, `"parameters":{"type":"object",`, `"parameters":{"type":"string",`), nil,
			"tools[0].function.parameters: want a JSON Schema of type object"},
		"invalid schema": {line(toolLine, `"minLength":1`, `"minLength":"one"`), nil,
			"tools[0].function.parameters: does not compile"},
		"tool file without parameters": {toolLine, map[string]string{"tools/convert.json": `{"type":"function","function":{"name":"convert"}}`},
			"tools[1]: tools/convert.json: function.parameters: missing"},
		"tool file missing": {line(toolLine, `"tools/convert.json"`, `"tools/nope.json"`), nil,
			"tools[1]: tools/nope.json: open"},
		"misspelt tool key": {line(toolLine, `"description"`, `"descripton"`), nil,
			`tools[0].function: unknown key "descripton" (allowed: name, description, parameters, strict)`},
		"not a function": {line(toolLine, `{"type":"function","function":{"name":"get_weather"`, `{"type":"retrieval","function":{"name":"get_weather"`), nil,
			`tools[0].type: want "function"`},
		"bad tool name": {line(toolLine, `"name":"get_weather","description"`, `"name":"get weather","description"`), nil,
			"tools[0].function.name: want a name of 1 to 64 letters"},
		"tool offered twice": {line(toolLine, `"tools/convert.json"]`, weatherTool+`]`), nil,
			`tools[1].function.name: "get_weather" offered twice`},
		"expect_tool not offered": {line(toolLine, `"expect_tool":{"name":"get_weather"`, `"expect_tool":{"name":"get_time"`), nil,
			`expect_tool.name: "get_time" is not a tool the case offers (offered: get_weather, convert)`},
		"expect_tool bad matcher": {line(toolLine, `"type":"subset"`, `"type":"fuzzy"`), nil,
			`expect_tool.arguments.type: unknown matcher "fuzzy"`},
		"expect_tool misspelt key": {line(toolLine, `"arguments":{"type":"subset"`, `"args":{"type":"subset"`), nil,
			`expect_tool: unknown key "args" (allowed: name, arguments)`},
		"tool_choice none": {line(toolLine, `"expect_tool"`, `"tool_choice":"none","expect_tool"`), nil,
			`tool_choice: "none" (allowed: "auto", "required"`},
		"tool_choice not offered": {line(toolLine, `"expect_tool"`, `"tool_choice":{"type":"function","function":{"name":"get_time"}},"expect_tool"`), nil,
			`tool_choice.function.name: "get_time" is not a tool the case offers`},
		"no reference calls": {line(toolLine, `,"answer_calls":[{"name":"get_weather","arguments":{"city":"Paris","unit":"celsius"}}]`, ``), nil,
			"answer_calls: missing: the reference calls"},
		"reference fails the schema": {line(toolLine, `"unit":"celsius"`, `"unit":"kelvin"`), nil,
			"answer_calls[0].arguments: fails its tool's checks: get_weather: arguments fail its parameters schema: /unit: enum"},
		"reference fails expect_tool": {line(toolLine, `"city":"Paris","unit"`, `"city":"Lyon","unit"`), nil,
			`answer_calls[0]: fails expect_tool: get_weather arguments: not a superset: $.city = "Lyon", want "Paris"`},
		"two calls without results": {line(toolLine, `}}]}`, `}},{"name":"convert","arguments":{"value":1}}]}`), nil,
			"answer_calls: 2 calls, one per agent step, but the case has no tool_results"},
		"text keys on a plain tool case": {line(toolLine, `"answer_calls"`, `"match":{"type":"exact"},"expected":"x","answer_calls"`), nil,
			"match: a tool case without tool_results is judged by its call"},
		"tool keys without tools": {`{"id":"t","prompt":"x","expected":"y","match":{"type":"exact"},"answer":"y","wrong_answer":"z","max_steps":3}`, nil,
			"max_steps: given without tools"},
		"max_steps 0": {line(loopLine, `"max_steps":4`, `"max_steps":0`), nil,
			"max_steps: 0 (allowed: a whole number from 1 to 100"},
		"max_steps below the reference": {line(loopLine, `"max_steps":4`, `"max_steps":2`), nil,
			"max_steps: 2, but the reference takes 3 steps"},
		"max_steps without results": {line(toolLine, `"answer_calls"`, `"max_steps":3,"answer_calls"`), nil,
			"max_steps: given without tool_results"},
		"result for a tool not offered": {line(loopLine, `"convert":{"value":64.4}`, `"convert":{"value":64.4},"get_time":1`), nil,
			"tool_results.get_time: not a tool the case offers"},
		"result missing": {line(loopLine, `,"convert":{"value":64.4}`, ``), nil,
			"tool_results: no result for convert, which the case offers"},
		"loop without a final check": {line(loopLine, `,"expected":"64","match":{"type":"contains"}`, ``), nil,
			"match.type: missing"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, p, err := loadTools(t, tc.files, tc.line)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+":1: "+tc.want)
			var ce *CaseError
			assert.True(t, errors.As(err, &ce), "a *CaseError")
		})
	}
}

// TestJudgeCalls: the checks of one answer of a tool case, each a
// quality failure (never an error of the request) when it fails.
func TestJudgeCalls(t *testing.T) {
	cs, _, err := loadTools(t, nil, toolLine, loopLine)
	require.NoError(t, err)
	plain, loop := NewCheck(&cs[0]), NewCheck(&cs[1])
	call := func(name, args string) sample.ToolCall { return sample.ToolCall{Name: name, Arguments: args} }
	cases := map[string]struct {
		chk                *Check
		s                  sample.Sample
		valid, match, pass bool
		detail             string
	}{
		"the expected call": {plain, sample.Sample{ToolCalls: []sample.ToolCall{call("get_weather", `{"city":"Paris","unit":"celsius"}`)}}, true, true, true, ""},
		"right tool, wrong city": {plain, sample.Sample{ToolCalls: []sample.ToolCall{call("get_weather", `{"city":"Lyon"}`)}}, true, false, false,
			`get_weather arguments: not a superset: $.city = "Lyon", want "Paris"`},
		"text instead of a call": {plain, sample.Sample{Content: "It is sunny."}, false, false, false, "no call of get_weather: the answer was text"},
		"an unknown tool":        {plain, sample.Sample{ToolCalls: []sample.ToolCall{call("get_time", `{}`)}}, false, false, false, `calls "get_time", which the case does not offer`},
		"arguments not JSON":     {plain, sample.Sample{ToolCalls: []sample.ToolCall{call("get_weather", `{"city":"Paris"`)}}, false, false, false, "get_weather: arguments not a JSON value"},
		"arguments off schema": {plain, sample.Sample{ToolCalls: []sample.ToolCall{call("get_weather", `{"city":"Paris","wind":true}`)}}, false, true, false,
			"arguments fail its parameters schema: /: additionalProperties"},
		"arguments cut": {plain, sample.Sample{ToolCalls: []sample.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`, ArgumentsCut: true}}}, false, true, false,
			"arguments cut at the capture limit"},
		"calls dropped": {plain, sample.Sample{ToolCallsCut: true, ToolCalls: []sample.ToolCall{call("get_weather", `{"city":"Paris"}`)}}, false, true, false,
			"dropped, unchecked"},
		"parallel calls, one expected":                    {plain, sample.Sample{ToolCalls: []sample.ToolCall{call("convert", `{"value":1}`), call("get_weather", `{"city":"Paris"}`)}}, true, true, true, ""},
		"a loop's second step is not held to expect_tool": {loop, sample.Sample{Step: 2, ToolCalls: []sample.ToolCall{call("convert", `{"value":18}`)}}, true, false, true, ""},
		"a loop's final answer, right":                    {loop, sample.Sample{Step: 3, Content: "It is 64 F."}, false, false, true, ""},
		"a loop's final answer, wrong":                    {loop, sample.Sample{Step: 3, Content: "It is 18 F."}, false, false, false, `missing "64"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q := tc.chk.Judge(&tc.s)
			assert.Equal(t, tc.valid, q.ToolValid, "tool valid: %+v", q)
			assert.Equal(t, tc.match, q.ToolMatched, "tool matched: %+v", q)
			assert.Equal(t, tc.pass, q.Pass(), "pass: %+v", q)
			if tc.detail != "" {
				assert.Contains(t, q.Detail, tc.detail)
			}
			assert.Equal(t, "w1" == q.Case || "loop" == q.Case, true)
		})
	}
}

// TestUnfinishedLoop: a loop that stopped without a final answer fails
// its answer check, saying why.
func TestUnfinishedLoop(t *testing.T) {
	cs, _, err := loadTools(t, nil, loopLine)
	require.NoError(t, err)
	chk := NewCheck(&cs[0])
	q := chk.Judge(&sample.Sample{Step: 4, ToolCalls: []sample.ToolCall{{Name: "convert", Arguments: `{"value":1}`}}})
	require.True(t, q.Pass(), "a valid call of a later step")
	chk.Unfinished(&q, "max_steps 4 reached")
	assert.False(t, q.Pass())
	assert.True(t, q.MatchChecked)
	assert.Contains(t, q.Detail, "no final answer: max_steps 4 reached")
}

func TestSubsetMatcher(t *testing.T) {
	m, err := NewMatcher(MatchSpec{Type: "subset"}, []byte(`{"city":"Paris","opts":{"unit":"c"}}`))
	require.NoError(t, err)
	for got, want := range map[string]bool{
		`{"city":"Paris","opts":{"unit":"c","wind":1},"x":2}`: true,
		`{"city":"Paris","opts":{"unit":"f"}}`:                false,
		`{"city":"Paris"}`:                                    false,
		`{"city":"Paris","opts":"c"}`:                         false,
		`not json`:                                            false,
	} {
		ok, detail := m.Match(got)
		assert.Equal(t, want, ok, "%s: %s", got, detail)
	}
	_, err = NewMatcher(MatchSpec{Type: "subset"}, []byte(`"Paris"`))
	assert.ErrorContains(t, err, "subset wants an object")
}

// TestLoopAnsweredWithText: an agent loop whose model answers its first
// step with text, calling nothing, ended there: the call it did not make
// fails tool valid, and the text is its final answer, judged for
// accuracy — so a model that never calls still has its accuracy judged,
// not dropped (issue 32, item 1).
func TestLoopAnsweredWithText(t *testing.T) {
	cs, _, err := loadTools(t, nil, loopLine)
	require.NoError(t, err)
	check := NewCheck(&cs[0])
	for text, right := range map[string]bool{"It is 64 F.": true, "It is 18 F.": false} {
		q := check.Judge(&sample.Sample{Step: 1, Content: text, Finish: "stop"})
		assert.True(t, q.ToolChecked && !q.ToolValid, "%q: no call made", text)
		assert.True(t, q.MatchChecked, "%q: the text is the loop's final answer", text)
		assert.Equal(t, right, q.Matched, text)
	}
}
