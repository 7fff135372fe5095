package sample

import "fmt"

// Quality is the quality verdict of one response. Each check has a Checked
// flag so that "not checked" is never read as "failed" or "passed".
type Quality struct {
	// Case is the fixture case id, so that a Tally can name failing cases.
	Case string `json:"case,omitempty"`

	JSONChecked bool `json:"json_checked,omitempty"`
	JSONValid   bool `json:"json_valid,omitempty"`
	// JSONLenient: the body parsed only after lenient stripping (a ```json
	// fence or surrounding prose); counted apart from strict passes.
	JSONLenient bool `json:"json_lenient,omitempty"`

	SchemaChecked bool   `json:"schema_checked,omitempty"`
	SchemaValid   bool   `json:"schema_valid,omitempty"`
	SchemaError   string `json:"schema_error,omitempty"` // instance path and violated keyword

	MatchChecked bool   `json:"match_checked,omitempty"`
	Matched      bool   `json:"matched,omitempty"`
	Expected     string `json:"expected,omitempty"` // for display, cut short
	Got          string `json:"got,omitempty"`      // for display, cut short
	Detail       string `json:"detail,omitempty"`   // why it did not match

	// Truncated: the answer was cut by max_tokens (finish_reason "length").
	Truncated bool `json:"truncated,omitempty"`

	// Tool calls, for a case that offers tools (METRICS.md, tool_valid and
	// tool_match): ToolValid says the answer made calls and every one names
	// an offered tool with arguments that parse as JSON and are valid
	// against its parameters schema (ToolError says why not); ToolMatched
	// says a call is the one the case expects (expect_tool).
	ToolChecked      bool   `json:"tool_checked,omitempty"`
	ToolValid        bool   `json:"tool_valid,omitempty"`
	ToolError        string `json:"tool_error,omitempty"`
	ToolMatchChecked bool   `json:"tool_match_checked,omitempty"`
	ToolMatched      bool   `json:"tool_matched,omitempty"`
	// JudgeChecked: a judge was asked about the answer (a rubric applied
	// and a judge endpoint was configured). JudgePass and JudgeScore are
	// its verdict on the rubric's scale, JudgeReason its words; JudgeError
	// says why there is no verdict (the judge failed, timed out or
	// answered something that is not one), which fails the check: a
	// judgment that did not happen is never a pass.
	JudgeChecked bool     `json:"judge_checked,omitempty"`
	JudgePass    bool     `json:"judge_pass,omitempty"`
	JudgeScore   *float64 `json:"judge_score,omitempty"`
	JudgeReason  string   `json:"judge_reason,omitempty"`
	JudgeError   string   `json:"judge_error,omitempty"`
}

// Pass reports whether every check that ran passed. JSON passes strictly,
// as json valid % counts it: a lenient pass (fenced JSON) is not a good
// answer for goodput nor a passing case.
func (r *Quality) Pass() bool {
	if r == nil {
		return true
	}
	if r.JSONChecked && (!r.JSONValid || r.JSONLenient) {
		return false
	}
	if r.SchemaChecked && !r.SchemaValid {
		return false
	}
	if r.MatchChecked && !r.Matched {
		return false
	}
	if r.ToolChecked && !r.ToolValid || r.ToolMatchChecked && !r.ToolMatched || r.JudgeChecked && !r.JudgePass {
		return false
	}
	// A cut answer fails through the checks it breaks; a chat answer that
	// hit max_tokens is still a good answer.
	return true
}

// MaxJudgeScore bounds a judge's score (the top of the 1–5 scale), and
// MaxJudgeText its reason and error: a judge's words are for a report
// line, not a document.
const (
	MaxJudgeScore = 5
	MaxJudgeText  = 1 << 10
)

// checkJudge: a judgment is a verdict or a failure, never both, with a
// score on a scale and words of a bounded size.
func (s *Sample) checkJudge() error {
	q := s.Quality
	if q == nil {
		return nil
	}
	switch {
	case !q.JudgeChecked && (q.JudgePass || q.JudgeScore != nil || q.JudgeReason != "" || q.JudgeError != ""):
		return fmt.Errorf("quality.judge_checked: false, but the sample holds a judgment (allowed: judge_pass, judge_score, judge_reason and judge_error only with judge_checked)")
	case q.JudgeError != "" && (q.JudgePass || q.JudgeScore != nil):
		return fmt.Errorf("quality.judge_error: %q beside a verdict (allowed: a verdict, or an error and no pass)", q.JudgeError)
	case q.JudgeChecked && q.JudgeError == "" && q.JudgeScore == nil:
		return fmt.Errorf("quality.judge_score: missing for a judgment without an error (allowed: a score, or judge_error saying why there is none)")
	case q.JudgeScore != nil && !(*q.JudgeScore >= 0 && *q.JudgeScore <= MaxJudgeScore):
		return fmt.Errorf("quality.judge_score: %v (allowed: 0 to %d)", *q.JudgeScore, MaxJudgeScore)
	case len(q.JudgeReason) > MaxJudgeText || len(q.JudgeError) > MaxJudgeText:
		return fmt.Errorf("quality.judge_reason, judge_error: %d and %d bytes (allowed: at most %d)", len(q.JudgeReason), len(q.JudgeError), MaxJudgeText)
	}
	return nil
}
