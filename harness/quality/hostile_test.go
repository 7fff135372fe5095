package quality

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestHostileToolCalls: a server's tool calls as an attacker or a broken
// parser sends them — arguments giving a key twice (which city was
// asked?), NUL, escapes, bytes that are not UTF-8, deep nesting, numbers
// that overflow, names that are not the tool's — are judged invalid with
// the reason, or valid as sent; the quality record that says so passes
// the samples file's check, and what it quotes is escaped.
func TestHostileToolCalls(t *testing.T) {
	cs, _, err := loadTools(t, nil, toolLine)
	require.NoError(t, err)
	chk := NewCheck(&cs[0])
	call := func(name, args string) sample.ToolCall { return sample.ToolCall{Name: name, Arguments: args} }
	for name, tc := range map[string]struct {
		call    sample.ToolCall
		valid   bool
		matched bool
		err     string
	}{
		"as asked":                                      {call: call("get_weather", `{"city": "Paris"}`), valid: true, matched: true},
		"a key twice":                                   {call: call("get_weather", `{"city": "Paris", "city": "Rome"}`), err: `get_weather: arguments give "city" twice`},
		"a key twice, \\u-escaped":                      {call: call("get_weather", `{"city": "Rome", "c\u0069ty": "Paris"}`), err: `arguments give "city" twice`},
		"NUL in the arguments":                          {call: call("get_weather", "{\"city\": \"Par\x00is\"}"), err: "get_weather: arguments"},
		"an escape in a value":                          {call: call("get_weather", `{"city": "Paris\u001b[2J"}`), valid: true},
		"bytes not UTF-8":                               {call: call("get_weather", "{\"city\": \"Par\xffis\"}"), valid: true},
		"deep nesting":                                  {call: call("get_weather", `{"city": `+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`), err: "get_weather: arguments"},
		"a number that overflows":                       {call: call("get_weather", `{"city": "Paris", "unit": 1e400}`), err: "get_weather: arguments"},
		"arguments not an object":                       {call: call("get_weather", `"Paris"`), err: "get_weather: arguments fail its parameters schema"},
		"arguments cut":                                 {call: sample.ToolCall{Name: "get_weather", Arguments: `{"city": "Pa`, ArgumentsCut: true}, err: "get_weather: arguments cut"},
		"a name escaped by the client":                  {call: call(`get\x1b[2Jweather`, `{"city": "Paris"}`), err: `calls "get\\x1b[2Jweather", which the case does not offer`},
		"a name with a newline, as the client keeps it": {call: call(`get_weather\nBenchmarkFake`, `{"city": "Paris"}`), err: `calls "get_weather\\nBenchmarkFake"`},
	} {
		t.Run(name, func(t *testing.T) {
			s := &sample.Sample{Scenario: "tools", Endpoint: "e", ToolCalls: []sample.ToolCall{tc.call}, Finish: "tool_calls"}
			q := chk.Judge(s)
			assert.Equal(t, tc.valid || tc.err == "", q.ToolValid, "valid: %s", q.ToolError)
			if tc.err != "" {
				assert.Contains(t, q.ToolError, tc.err)
			}
			if tc.matched {
				assert.True(t, q.ToolMatched, q.Detail)
			}
			for _, text := range []string{q.ToolError, q.Detail} {
				assert.NotContains(t, text, "\x1b", "quoted raw")
				assert.NotContains(t, text, "\x00")
			}
			s.Start, s.Total, s.Quality = time.Now(), time.Second, &q
			require.NoError(t, s.Check(), "the sample with its quality passes the samples file's check")
		})
	}
}

// TestHostileFixtureFile: a fixture file as an editor or a generator
// leaves it — a BOM, CRLF, a key given twice, a line cut short, NUL, a
// file past the bound — is read as meant or refused as file:line: key.
func TestHostileFixtureFile(t *testing.T) {
	good := `{"id": "c1", "prompt": "Say hi.", "expected": "hi", "match": {"type": "contains"}, "answer": "hi", "wrong_answer": "no"}`
	for name, tc := range map[string]struct{ text, err string }{
		"a BOM":                 {text: "\ufeff" + good + "\n"},
		"CRLF":                  {text: good + "\r\n" + strings.Replace(good, "c1", "c2", 1) + "\r\n"},
		"an answer twice":       {text: strings.Replace(good, `"answer": "hi"`, `"answer": "hi", "answer": "bye"`, 1) + "\n", err: ":1: answer: given twice"},
		"cut mid-record":        {text: good + "\n" + `{"id": "c2", "pro`, err: ":2: json: not a JSON object"},
		"NUL":                   {text: good + "\n\x00\n", err: ":2: json: not a JSON object"},
		"an id with an ESC":     {text: strings.Replace(good, `"c1"`, `"c\u001b[2J"`, 1) + "\n", err: ":1: id:"},
		"think past a day":      {text: `{"id": "c1", "turns": ["a", "b"], "think": "25h"}` + "\n", err: ":1: think:"},
		"think overflows":       {text: `{"id": "c1", "turns": ["a", "b"], "think": "9999999999h"}` + "\n", err: ":1: think:"},
		"turns past the bound":  {text: `{"id": "c1", "turns": [` + strings.Repeat(`"a",`, sample.MaxTurns) + `"a"]}` + "\n", err: ":1: turns: 1001 turns"},
		"a file past the bound": {text: good + "\n" + strings.Repeat(" ", 64<<20), err: "allowed: at most"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "cases.jsonl", tc.text)
			cs, err := LoadCases(p)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.NotContains(t, err.Error(), "\x1b")
				return
			}
			require.NoError(t, err)
			assert.NotEmpty(t, cs)
		})
	}
}
