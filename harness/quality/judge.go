package quality

import (
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
)

// The judge matcher: {"type": "judge", "rubric": "fixtures/rubrics/chat.yaml"}
// says the answer is right when a judge model, asked with the rubric,
// passes it. The verdict comes after a level's measured requests (package
// judge asks, the session sends), so it is no check a response can pass at
// once: Check.Run leaves such a case's match unchecked, and the session
// folds the verdict in with SetJudgment or SetJudgeFailure. Without a
// judge the case is not judged, which a verdict says, rather than passed.
// A scenario may name a rubric for all its cases as well (session.Scenario's
// Rubric): they are then judged besides their own matcher.
type judgeMatcher struct{ rubric string }

// Match is never a pass: a judged case that reaches it had no judge.
func (judgeMatcher) Match(string) (bool, string) {
	return false, "judged by a rubric, and no judge has seen it"
}

func buildJudge(exp any, o options) (Matcher, error) {
	if exp != nil {
		return nil, &SpecError{"expected", "the judge reads no expected value: the reference it may show the judge is the case's answer"}
	}
	var r string
	if _, err := o.get("rubric", &r, "a rubric file's path, relative to the repo root (fixtures/rubrics/chat.yaml)"); err != nil {
		return nil, err
	}
	return judgeMatcher{rubric: strings.TrimSpace(r)}, nil
}

// JudgeRubric says whether the case's matcher is the judge, and the rubric
// it names ("" for the scenario's).
func (c *Case) JudgeRubric() (rubric string, judged bool) {
	m, err := c.Matcher()
	if err != nil {
		return "", false
	}
	jm, ok := m.(judgeMatcher)
	return jm.rubric, ok
}

// judgeText is how much of a judge's words a sample keeps: a report line's.
const judgeText = 200

// SetJudgment records a judge's verdict on the answer q is the quality of.
func SetJudgment(q *sample.Quality, score float64, pass bool, reason string) {
	q.JudgeChecked, q.JudgePass, q.JudgeScore = true, pass, &score
	q.JudgeReason, q.JudgeError = cutAt(reason, judgeText), ""
	if !pass {
		q.Detail = join(q.Detail, "judge: "+q.JudgeReason)
	}
}

// SetJudgeFailure records that the judge gave no verdict, and why: the
// answer fails the check, with that reason, for a judgment that did not
// happen is never a pass.
func SetJudgeFailure(q *sample.Quality, why string) {
	q.JudgeChecked, q.JudgePass, q.JudgeScore, q.JudgeReason = true, false, nil, ""
	q.JudgeError = cutAt(why, judgeText)
	q.Detail = join(q.Detail, "judge: no verdict: "+q.JudgeError)
}
