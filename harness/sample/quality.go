package sample

// Quality is the quality verdict of one response. Each check has a Checked
// flag so that "not checked" is never read as "failed" or "passed".
type Quality struct {
	// Case is the fixture case id, so that a quality.Tally can name failing cases.
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
	if r.ToolChecked && !r.ToolValid || r.ToolMatchChecked && !r.ToolMatched {
		return false
	}
	// A cut answer fails through the checks it breaks; a chat answer that
	// hit max_tokens is still a good answer.
	return true
}
