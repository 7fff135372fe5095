package quality

import (
	"path/filepath"
	"testing"
)

// TestShippedFixtures loads every shipped fixture set and proves its checks
// can both pass and fail: each answer passes, each wrong answer fails the
// matcher (and, where there is a schema, still passes it — so the set tests
// accuracy, not just JSON shape).
func TestShippedFixtures(t *testing.T) {
	minCases := map[string]int{"classify.jsonl": 30, "extract.jsonl": 20, "summarize.jsonl": 10}
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
			var right, wrong Tally
			for i := range cases {
				c := &cases[i]
				chk := NewCheck(c)
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
			if right.AccuracyRate() != 1 || wrong.AccuracyRate() != 0 {
				t.Errorf("accuracy: answers %v, wrong answers %v", right.AccuracyRate(), wrong.AccuracyRate())
			}
		})
	}
}
