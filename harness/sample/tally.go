package sample

import (
	"math"
)

// Tally adds up Quality verdicts. It is plain data: copy it, serialise it, Merge
// tallies from shards or endpoints. Each rate's denominator counts only the
// responses where that check ran; a rate with no denominator is NaN, not 0,
// because "never checked" is not "always failed".
type Tally struct {
	Responses int `json:"responses"`
	Passed    int `json:"passed"` // every check that ran passed (Quality.Pass)
	Truncated int `json:"truncated"`

	JSONChecked int `json:"json_checked"`
	JSONValid   int `json:"json_valid"`   // strict passes only
	JSONLenient int `json:"json_lenient"` // passes only after lenient stripping

	SchemaChecked int `json:"schema_checked"`
	SchemaValid   int `json:"schema_valid"`

	MatchChecked int `json:"match_checked"`
	Matched      int `json:"matched"`

	// Answers of tool cases judged as calls, and those valid; answers
	// judged against expect_tool, and those that matched.
	ToolChecked      int `json:"tool_checked"`
	ToolValid        int `json:"tool_valid"`
	ToolMatchChecked int `json:"tool_match_checked"`
	ToolMatched      int `json:"tool_matched"`
	// JudgeChecked counts the answers a judge was asked about, JudgePassed
	// those it passed, JudgeFailed those it gave no verdict on (counted as
	// not passed), JudgeScored and JudgeScoreSum the scores it gave.
	JudgeChecked  int     `json:"judge_checked,omitempty"`
	JudgePassed   int     `json:"judge_passed,omitempty"`
	JudgeFailed   int     `json:"judge_failed,omitempty"`
	JudgeScored   int     `json:"judge_scored,omitempty"`
	JudgeScoreSum float64 `json:"judge_score_sum,omitempty"`
}

// Add counts one result.
func (t *Tally) Add(r Quality) {
	t.Responses++
	if r.Truncated {
		t.Truncated++
	}
	if r.JSONChecked {
		t.JSONChecked++
		switch {
		case r.JSONValid && r.JSONLenient:
			t.JSONLenient++
		case r.JSONValid:
			t.JSONValid++
		}
	}
	if r.SchemaChecked {
		t.SchemaChecked++
		if r.SchemaValid {
			t.SchemaValid++
		}
	}
	if r.MatchChecked {
		t.MatchChecked++
		if r.Matched {
			t.Matched++
		}
	}
	t.ToolChecked += btoi(r.ToolChecked)
	t.ToolValid += btoi(r.ToolChecked && r.ToolValid)
	t.ToolMatchChecked += btoi(r.ToolMatchChecked)
	t.ToolMatched += btoi(r.ToolMatchChecked && r.ToolMatched)
	if r.JudgeChecked {
		t.JudgeChecked++
		if r.JudgePass {
			t.JudgePassed++
		}
		if r.JudgeError != "" {
			t.JudgeFailed++
		}
		if r.JudgeScore != nil {
			t.JudgeScored++
			t.JudgeScoreSum += *r.JudgeScore
		}
	}
	if r.Pass() {
		t.Passed++
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Merge adds another tally's counts.
func (t *Tally) Merge(o Tally) {
	t.Responses += o.Responses
	t.Passed += o.Passed
	t.Truncated += o.Truncated
	t.JSONChecked += o.JSONChecked
	t.JSONValid += o.JSONValid
	t.JSONLenient += o.JSONLenient
	t.SchemaChecked += o.SchemaChecked
	t.SchemaValid += o.SchemaValid
	t.MatchChecked += o.MatchChecked
	t.Matched += o.Matched
	t.ToolChecked += o.ToolChecked
	t.ToolValid += o.ToolValid
	t.ToolMatchChecked += o.ToolMatchChecked
	t.ToolMatched += o.ToolMatched
	t.JudgeChecked += o.JudgeChecked
	t.JudgePassed += o.JudgePassed
	t.JudgeFailed += o.JudgeFailed
	t.JudgeScored += o.JudgeScored
	t.JudgeScoreSum += o.JudgeScoreSum
}

func rate(n, d int) float64 {
	if d == 0 {
		return math.NaN()
	}
	return float64(n) / float64(d)
}

// JSONValidRate is strict JSON passes / responses checked for JSON, in
// [0, 1]. Lenient passes are not in it: see JSONLenientRate.
func (t Tally) JSONValidRate() float64 { return rate(t.JSONValid, t.JSONChecked) }

// JSONLenientRate is passes that needed lenient stripping / responses
// checked for JSON. JSONValidRate + JSONLenientRate is the lenient pass rate.
func (t Tally) JSONLenientRate() float64 { return rate(t.JSONLenient, t.JSONChecked) }

// SchemaValidRate is schema passes / responses checked against a schema.
func (t Tally) SchemaValidRate() float64 { return rate(t.SchemaValid, t.SchemaChecked) }

// AccuracyRate is matched / responses whose answer was matched.
func (t Tally) AccuracyRate() float64 { return rate(t.Matched, t.MatchChecked) }

// PassRate is responses passing every check that ran / responses.
func (t Tally) PassRate() float64 { return rate(t.Passed, t.Responses) }

// ToolValidRate is answers whose calls were all valid / tool-case answers
// judged (an answer with no call is not valid).
func (t Tally) ToolValidRate() float64 { return rate(t.ToolValid, t.ToolChecked) }

// ToolMatchRate is answers with the call expect_tool describes / answers
// judged against it.
func (t Tally) ToolMatchRate() float64 { return rate(t.ToolMatched, t.ToolMatchChecked) }

// JudgePassRate is answers the judge passed / answers judged: a judgment
// that failed counts as not passed.
func (t Tally) JudgePassRate() float64 { return rate(t.JudgePassed, t.JudgeChecked) }

// JudgeScoreMean is the mean score of the judged answers that got one.
func (t Tally) JudgeScoreMean() float64 {
	if t.JudgeScored == 0 {
		return math.NaN()
	}
	return t.JudgeScoreSum / float64(t.JudgeScored)
}
