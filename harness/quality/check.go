package quality

import (
	"strings"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Check is everything needed to judge one response: the case (its matcher
// and expected value), the compiled schema, and the JSON policy. Build it
// once per case and call Run per response; Run does not modify the Check,
// so one Check may serve many goroutines.
type Check struct {
	Case   *Case
	Schema *jsonschema.Schema
	// RequireJSON checks that the body is JSON even without a schema. A
	// schema implies it.
	RequireJSON bool
	// Lenient accepts JSON inside a ```json fence or prose; such a pass is
	// marked sample.Quality.JSONLenient and counted apart.
	Lenient bool
}

// NewCheck returns the strict check a loaded case asks for: its schema, and
// JSON required when it has a schema or a JSON matcher.
func NewCheck(c *Case) *Check {
	return &Check{Case: c, Schema: c.CompiledSchema, RequireJSON: c.NeedsJSON()}
}

// displayMax is how much of expected and got a sample.Quality keeps: enough to see
// what went wrong in a report line, bounded so that they stay small.
const displayMax = 80

// Run judges one response. finishReason is the stream's finish_reason;
// "length" marks the result Truncated (the checks then fail or pass on what
// arrived).
func (c *Check) Run(content, finishReason string) sample.Quality {
	r := sample.Quality{Truncated: finishReason == "length"}
	body := content
	var doc any
	if c.RequireJSON || c.Schema != nil {
		r.JSONChecked = true
		v, text, lenient, err := ParseJSON(content, c.Lenient)
		if err != nil {
			r.Detail = "json: " + err.Error()
		} else {
			r.JSONValid, r.JSONLenient = true, lenient
			if lenient {
				r.Detail = "json: valid only once a fence or prose around it was stripped (lenient; json valid counts strict passes)"
			}
			// Matchers see the JSON the lenient path found, not the prose.
			body, doc = text, v
		}
	}
	if c.Schema != nil {
		r.SchemaChecked = true
		if r.JSONValid {
			r.SchemaError = ValidateSchema(c.Schema, doc)
			r.SchemaValid = r.SchemaError == ""
		} else {
			r.SchemaError = "/: not JSON"
		}
	}
	if c.Case == nil {
		return r
	}
	r.Case = c.Case.ID
	m, err := c.Case.Matcher()
	if err != nil {
		r.Detail = join(r.Detail, "match: "+err.Error())
		return r
	}
	if _, judged := m.(judgeMatcher); judged {
		r.Got = cut(strings.TrimSpace(body))
		return r // the judge's verdict comes later (SetJudgment)
	}
	r.MatchChecked = true
	ok, detail := m.Match(body)
	r.Matched = ok
	r.Expected = cut(c.Case.ExpectedText())
	r.Got = cut(strings.TrimSpace(body))
	if !ok {
		r.Detail = join(r.Detail, detail)
	}
	return r
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "; " + b
}

// cut shortens s for display on one line: newlines become spaces and the
// cut falls on a rune boundary, marked with "…".
func cut(s string) string { return cutAt(s, displayMax) }

// cutAt is cut at n bytes.
func cutAt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
