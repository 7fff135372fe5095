package quality

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJudgeMatcher: a case judged by a rubric loads without a matcher
// that could pass it at once: its match is not checked until a judge's
// verdict comes (SetJudgment), and a verdict that did not come fails it.
func TestJudgeMatcher(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(
		`{"id": "c1", "prompt": "Hello?", "match": {"type": "judge", "rubric": "fixtures/rubrics/chat.yaml"}, "answer": "Hello! How can I help?", "wrong_answer": "Go away."}`+"\n"+
			`{"id": "c2", "prompt": "Hi?", "match": {"type": "judge"}, "answer": "Hi there.", "wrong_answer": "No."}`+"\n"), 0o644))
	cases, err := LoadCases(p)
	require.NoError(t, err)
	rubric, judged := cases[0].JudgeRubric()
	assert.True(t, judged)
	assert.Equal(t, "fixtures/rubrics/chat.yaml", rubric)
	rubric, judged = cases[1].JudgeRubric()
	assert.True(t, judged)
	assert.Empty(t, rubric, "the scenario's rubric")

	q := NewCheck(&cases[0]).Run("Go away.", "stop")
	assert.False(t, q.MatchChecked, "no verdict at once")
	assert.True(t, q.Pass(), "nothing checked yet")
	SetJudgeFailure(&q, "judge request timed out: no headers")
	assert.False(t, q.Pass())
	assert.Contains(t, q.Detail, "judge: no verdict: judge request timed out")
	SetJudgment(&q, 2, false, "rude")
	assert.False(t, q.Pass())
	assert.Empty(t, q.JudgeError)
	assert.Contains(t, q.Detail, "judge: rude")
	SetJudgment(&q, 5, true, "helpful")
	assert.True(t, q.Pass())

	var tl sample.Tally
	a, b, c := NewCheck(&cases[0]).Run("x", "stop"), NewCheck(&cases[0]).Run("y", "stop"), NewCheck(&cases[0]).Run("z", "stop")
	SetJudgment(&a, 5, true, "ok")
	SetJudgment(&b, 2, false, "no")
	SetJudgeFailure(&c, "judge answer not JSON")
	tl.Add(a)
	tl.Add(b)
	tl.Add(c)
	assert.InDelta(t, 1.0/3, tl.JudgePassRate(), 1e-12, "a failed judgment counts as not passed")
	assert.InDelta(t, 3.5, tl.JudgeScoreMean(), 1e-12, "a failed judgment has no score")
	assert.Equal(t, 1, tl.JudgeFailed)
	var empty sample.Tally
	assert.True(t, math.IsNaN(empty.JudgePassRate()) && math.IsNaN(empty.JudgeScoreMean()), "never judged is not 0%")
	var m sample.Tally
	m.Merge(tl)
	assert.Equal(t, tl, m)
}

// TestJudgeMatcherRefuses: a judged case's spec is checked like any.
func TestJudgeMatcherRefuses(t *testing.T) {
	cases := map[string]struct{ line, want string }{
		"an expected value": {`{"id": "c", "prompt": "q", "expected": "x", "match": {"type": "judge"}, "answer": "a", "wrong_answer": "b"}`, ":1: expected: the judge reads no expected value"},
		"an unknown option": {`{"id": "c", "prompt": "q", "match": {"type": "judge", "rubrc": "x"}, "answer": "a", "wrong_answer": "b"}`, ":1: match.rubrc: unknown option for judge (allowed: rubric)"},
		"a rubric number":   {`{"id": "c", "prompt": "q", "match": {"type": "judge", "rubric": 3}, "answer": "a", "wrong_answer": "b"}`, ":1: match.rubric: want a rubric file's path"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cases.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(tc.line+"\n"), 0o644))
			_, err := LoadCases(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+tc.want)
		})
	}
}
