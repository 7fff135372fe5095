package stream

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// assemble runs deltas (each the JSON of a delta object) through an
// assembler with room argument bytes, and returns the calls and which
// deltas were tokens.
func assemble(t *testing.T, room int, deltas ...string) ([]sample.ToolCall, bool, []bool) {
	t.Helper()
	a := newToolAssembler(room)
	var fresh []bool
	for _, d := range deltas {
		var dl delta
		require.NoError(t, json.Unmarshal([]byte(d), &dl), d)
		fresh = append(fresh, a.add(&dl))
	}
	var s sample.Sample
	a.into(&s)
	return s.ToolCalls, s.ToolCallsCut, fresh
}

func TestToolAssembly(t *testing.T) {
	cases := map[string]struct {
		deltas []string
		calls  []sample.ToolCall
		tokens []bool
	}{
		"fragments by index": {
			[]string{`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\""}}]}`, `{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}`},
			[]sample.ToolCall{call(0, "a", "f", `{"x":1}`)}, []bool{true, true, true}},
		"a repeat with no new bytes is no token": {
			[]string{`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":""}}]}`, `{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}]}`},
			[]sample.ToolCall{call(0, "a", "f", `{}`)}, []bool{true, false, false}},
		"two indexes interleaved": {
			[]string{`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}},{"index":1,"id":"b","function":{"name":"g"}}]}`,
				`{"tool_calls":[{"index":1,"function":{"arguments":"2"}}]}`, `{"tool_calls":[{"index":0,"function":{"arguments":"1"}}]}`},
			[]sample.ToolCall{call(0, "a", "f", "1"), call(1, "b", "g", "2")}, []bool{true, true, true}},
		"one index, two ids": {
			[]string{`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"1"}}]}`,
				`{"tool_calls":[{"index":0,"id":"b","function":{"name":"f","arguments":"2"}}]}`, `{"tool_calls":[{"index":0,"function":{"arguments":"3"}}]}`},
			[]sample.ToolCall{call(0, "a", "f", "1"), call(0, "b", "f", "23")}, []bool{true, true, true}},
		"no index, whole calls with ids": {
			[]string{`{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"1"}}]}`, `{"tool_calls":[{"id":"b","function":{"name":"f","arguments":"2"}}]}`},
			[]sample.ToolCall{call(0, "a", "f", "1"), call(1, "b", "f", "2")}, []bool{true, true}},
		"no index, no ids: a second name starts a call": {
			[]string{`{"tool_calls":[{"function":{"name":"f","arguments":"1"}},{"function":{"name":"f","arguments":"2"}}]}`},
			[]sample.ToolCall{call(0, "", "f", "1"), call(1, "", "f", "2")}, []bool{true}},
		"no index: fragments continue the last call": {
			[]string{`{"tool_calls":[{"id":"a","function":{"name":"f","arguments":""}}]}`, `{"tool_calls":[{"function":{"arguments":"{}"}}]}`,
				`{"tool_calls":[{"function":{"name":"f"}}]}`, `{"tool_calls":[{"id":"a","function":{"arguments":"!"}}]}`},
			[]sample.ToolCall{call(0, "a", "f", "{}!")}, []bool{true, true, false, true}},
		"name fragments are joined": {
			[]string{`{"tool_calls":[{"index":0,"function":{"name":"get_"}}]}`, `{"tool_calls":[{"index":0,"function":{"name":"weather"}}]}`},
			[]sample.ToolCall{call(0, "", "get_weather", "")}, []bool{true, true}},
		"an id alone is no token": {
			[]string{`{"tool_calls":[{"index":0,"id":"a"}]}`, `{"tool_calls":[{"index":0,"function":{"name":"f"}}]}`},
			[]sample.ToolCall{call(0, "a", "f", "")}, []bool{false, true}},
		"legacy function_call": {
			[]string{`{"function_call":{"name":"f","arguments":""}}`, `{"function_call":{"arguments":"{}"}}`},
			[]sample.ToolCall{call(0, "", "f", "{}")}, []bool{true, true}},
		"arguments as a JSON value": {
			[]string{`{"tool_calls":[{"index":0,"function":{"name":"f","arguments":{"a": 1}}}]}`},
			[]sample.ToolCall{call(0, "", "f", `{"a": 1}`)}, []bool{true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			calls, cut, tokens := assemble(t, 1<<20, tc.deltas...)
			assert.Equal(t, tc.calls, calls)
			assert.Equal(t, tc.tokens, tokens, "which deltas are tokens")
			assert.False(t, cut)
		})
	}
}

// TestToolAssemblyBounds: what a hostile stream can make the client keep
// is bounded: calls, name and id lengths, argument bytes.
func TestToolAssemblyBounds(t *testing.T) {
	t.Run("calls", func(t *testing.T) {
		var deltas []string
		for i := 0; i < maxToolCalls+50; i++ {
			deltas = append(deltas, `{"tool_calls":[{"id":"c`+strings.Repeat("x", i)+`","function":{"name":"f","arguments":"1"}}]}`,
				`{"tool_calls":[{"function":{"arguments":"2"}}]}`)
		}
		calls, cut, tokens := assemble(t, 1<<20, deltas...)
		assert.Len(t, calls, maxToolCalls)
		assert.True(t, cut, "the dropped calls are said")
		assert.Equal(t, "12", calls[maxToolCalls-1].Arguments, "a continuation of a dropped call goes nowhere")
		for i, tok := range tokens {
			assert.True(t, tok, "delta %d brought bytes: a token, kept or not", i)
		}
	})
	t.Run("name and id", func(t *testing.T) {
		long := strings.Repeat("é", 300) // 600 bytes
		d := `{"tool_calls":[{"index":0,"id":"` + long + `","function":{"name":"` + long + `"}}]}`
		calls, _, tokens := assemble(t, 1<<20, d, d)
		require.Len(t, calls, 1, "the same long id and name sent again is the same call")
		assert.LessOrEqual(t, len(calls[0].Name), maxMeta)
		assert.LessOrEqual(t, len(calls[0].ID), maxMeta)
		assert.True(t, strings.HasPrefix(long, calls[0].Name), "cut on a rune boundary")
		assert.Equal(t, []bool{true, false}, tokens)
	})
	t.Run("arguments share the content limit", func(t *testing.T) {
		calls, _, _ := assemble(t, 10, `{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"0123456"}}]}`,
			`{"tool_calls":[{"index":1,"function":{"name":"g","arguments":"abcdef"}}]}`)
		require.Len(t, calls, 2)
		assert.Equal(t, []sample.ToolCall{{Index: 0, Name: "f", Arguments: "0123456"}, {Index: 1, Name: "g", Arguments: "abc", ArgumentsCut: true}}, calls)
	})
}

// TestToolNamesReadBack: a server's tool-call name or id holding a
// control character, an ANSI escape, a bidi control or bytes that are not
// UTF-8 is kept in its escaped form, so that the sample passes the
// reader's check (what llmsla writes, llmsla reads) and names no tool: the
// quality check counts the call invalid, and the level is judged.
func TestToolNamesReadBack(t *testing.T) {
	for name, hostile := range map[string]string{
		"ansi":    `get\u001b[2Jweather`,
		"newline": `get\nweather`,
		"bidi":    `get\u202eweather`,
		"long":    strings.Repeat(`\u0007`, 400),
	} {
		t.Run(name, func(t *testing.T) {
			calls, _, _ := assemble(t, 1<<20, `{"tool_calls":[{"index":0,"id":"`+hostile+`","function":{"name":"`+hostile+`","arguments":"{}"}}]}`)
			require.Len(t, calls, 1)
			s := sample.Sample{Scenario: "tools", Endpoint: "e", Start: time.Now(), Total: time.Millisecond, ToolCalls: calls}
			require.NoError(t, s.Check(), "the sample reads back")
			assert.NotEqual(t, "getweather", calls[0].Name)
			assert.LessOrEqual(t, len(calls[0].Name), maxMeta)
			assert.NotContains(t, calls[0].Name, "\x1b")
		})
	}
}
