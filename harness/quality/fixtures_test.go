package quality

import (
	"path/filepath"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestShippedFixtures loads every shipped fixture set and proves its checks
// can both pass and fail: each answer passes, each wrong answer fails the
// matcher (and, where there is a schema, still passes it — so the set tests
// accuracy, not just JSON shape).
func TestShippedFixtures(t *testing.T) {
	minCases := map[string]int{"classify.jsonl": 30, "extract.jsonl": 20, "summarize.jsonl": 10, "tools.jsonl": 20}
	files, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture sets found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			cases, err := LoadCases(f)
			if err != nil {
				t.Fatal(err)
			}
			if n := minCases[filepath.Base(f)]; len(cases) < n {
				t.Errorf("%d cases, want ≥ %d", len(cases), n)
			}
			var right, wrong sample.Tally
			for i := range cases {
				c := &cases[i]
				chk := NewCheck(c)
				if c.IsToolCase() {
					checkToolCase(t, f, c)
					if !c.IsLoop() {
						continue // judged by its call alone
					}
				}
				if r := chk.Run(c.Answer, "stop"); !r.Pass() || !r.MatchChecked {
					t.Errorf("%s:%d: answer fails: %+v", f, c.Line, r)
				} else {
					right.Add(r)
				}
				r := chk.Run(c.WrongAnswer, "stop")
				if r.Matched || r.Pass() {
					t.Errorf("%s:%d: wrong_answer passes: %+v", f, c.Line, r)
				}
				if c.Schema != "" && (!r.SchemaChecked || !r.SchemaValid) {
					t.Errorf("%s:%d: wrong_answer fails the schema: %s", f, c.Line, r.SchemaError)
				}
				wrong.Add(r)
			}
			if right.Responses > 0 && (right.AccuracyRate() != 1 || wrong.AccuracyRate() != 0) {
				t.Errorf("accuracy: answers %v, wrong answers %v", right.AccuracyRate(), wrong.AccuracyRate())
			}
		})
	}
}

// checkToolCase: a tool case's reference calls pass every step's checks,
// and text in place of its first call, or that call without arguments,
// fails them.
func checkToolCase(t *testing.T, f string, c *Case) {
	t.Helper()
	chk := NewCheck(c)
	for k, call := range c.AnswerCalls {
		s := sample.Sample{Step: k + 1, Finish: "tool_calls", ToolCalls: []sample.ToolCall{{Name: call.Name, Arguments: string(call.Arguments)}}}
		if !c.IsLoop() {
			s.Step = 0
		}
		if q := chk.Judge(&s); !q.Pass() || !q.ToolChecked {
			t.Errorf("%s:%d: answer_calls[%d] fails: %s", f, c.Line, k, q.Detail)
		}
	}
	text := chk.Judge(&sample.Sample{Content: "I would call " + c.AnswerCalls[0].Name, Finish: "stop"})
	if text.ToolValid || text.Pass() {
		t.Errorf("%s:%d: a text answer passes: %+v", f, c.Line, text)
	}
	if c.ExpectTool != nil && c.ExpectTool.Match.Type != "" {
		empty := chk.Judge(&sample.Sample{Finish: "tool_calls", ToolCalls: []sample.ToolCall{{Name: c.AnswerCalls[0].Name, Arguments: "{}"}}})
		if empty.ToolMatched {
			t.Errorf("%s:%d: a call without arguments matches expect_tool", f, c.Line)
		}
	}
}
