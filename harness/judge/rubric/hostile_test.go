package rubric

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileRubric: a rubric file as a careless editor or an attacker
// writes it — a name that would forge output (it names every cache line
// and report row), an alias bomb, numbers that overflow, a BOM, CRLF — is
// read as meant or refused as file:line: key: what is wrong.
func TestHostileRubric(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	for i := 'b'; i <= 'j'; i++ {
		prev := string(i - 1)
		bomb += string(i) + ": &" + string(i) + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
	}
	for name, tc := range map[string]struct{ yaml, err, name string }{
		"a name with an escape":         {yaml: "name: \"sum\\e]0;pwned\\a\"\ncriteria: [Good.]\nscale: pass_fail\n", err: ":1: name: \"sum\\x1b]0;pwned\\a\" holds a control character"},
		"a name with a newline":         {yaml: "name: \"a\\nBenchmarkFake 1 1 ns/op\"\ncriteria: [Good.]\nscale: pass_fail\n", err: ":1: name:"},
		"an alias bomb":                 {yaml: bomb + "criteria: [Good.]\nscale: pass_fail\n", err: "r.yaml"},
		"a threshold overflows":         {yaml: "criteria: [Good.]\nscale: 1-5\nthreshold: 1e400\n", err: ":3: threshold: \"1e400\" is not a number"},
		"a threshold .inf":              {yaml: "criteria: [Good.]\nscale: 1-5\nthreshold: .inf\n", err: ":3: threshold: \".inf\" is not a number"},
		"a BOM":                         {yaml: "\ufeffname: summary\ncriteria: [Good.]\nscale: pass_fail\n", name: "summary"},
		"CRLF":                          {yaml: "name: summary\r\ncriteria: [Good.]\r\nscale: pass_fail\r\n", name: "summary"},
		"a file past 64 KiB":            {yaml: "criteria: [\"" + strings.Repeat("x", maxRubric) + "\"]\nscale: pass_fail\n", err: "allowed: at most 65536"},
		"a criterion of a mapping deep": {yaml: "criteria:\n  - {a: {b: {c: {d: x}}}}\nscale: pass_fail\n", err: ":2: criteria[0]: a mapping"},
	} {
		t.Run(name, func(t *testing.T) {
			p := write(t, "r.yaml", tc.yaml)
			r, err := Load(p)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.NotContains(t, err.Error(), "\x1b")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.name, r.Name)
		})
	}
}

// TestHostileLabels: a labelled file's lines as people and tools write
// them — a key given twice (which label is meant?), an id that would
// forge output, a line cut short, NUL, a BOM, CRLF — are read as meant
// or refused naming file:line and key.
func TestHostileLabels(t *testing.T) {
	r := &Rubric{Name: "chat", Criteria: []string{"Answers."}, Scale: PassFail}
	good := `{"id": "a1", "question": "Q", "answer": "A", "label": "pass"}`
	for name, tc := range map[string]struct{ text, err string }{
		"a label twice":     {text: `{"id": "a1", "question": "Q", "answer": "A", "label": "pass", "label": "fail"}` + "\n", err: ":1: label: given twice"},
		"an id with an ESC": {text: `{"id": "a\u001b[2J", "question": "Q", "answer": "A", "label": "pass"}` + "\n", err: ":1: id:"},
		"cut mid-record":    {text: good + "\n" + `{"id": "a2", "quest`, err: ":2: json: not a JSON object"},
		"NUL":               {text: good + "\n\x00\n", err: ":2: json: not a JSON object"},
		"a label of 1e400":  {text: `{"id": "a1", "question": "Q", "answer": "A", "label": 1e400}` + "\n", err: ":1: label: 1e400 is not a label"},
		"a BOM":             {text: "\ufeff" + good + "\n"},
		"CRLF":              {text: good + "\r\n" + strings.Replace(good, "a1", "a2", 1) + "\r\n"},
	} {
		t.Run(name, func(t *testing.T) {
			p := write(t, "labels.jsonl", tc.text)
			ls, err := LoadLabels(p, r)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), p+tc.err)
				assert.NotContains(t, err.Error(), "\x1b")
				return
			}
			require.NoError(t, err)
			assert.NotEmpty(t, ls)
		})
	}
}
