package quality

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Matcher decides whether one answer text is right. detail says why not
// (or, on a pass, what was compared) in words fit for a report.
type Matcher interface {
	Match(got string) (ok bool, detail string)
}

// MatcherFunc adapts a function to Matcher.
type MatcherFunc func(got string) (bool, string)

// Match calls f.
func (f MatcherFunc) Match(got string) (bool, string) { return f(got) }

// MatchSpec is a case's "match" object: a matcher type plus its options,
// e.g. {"type": "number", "tolerance": 0.01, "relative": true}.
type MatchSpec struct {
	Type    string
	Options map[string]json.RawMessage
}

// UnmarshalJSON keeps every key but "type" as an option, so that unknown
// options can be reported by name rather than silently dropped.
func (s *MatchSpec) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("want an object like {\"type\": \"normalized\"}: %w", err)
	}
	s.Type, s.Options = "", map[string]json.RawMessage{}
	for k, v := range m {
		if k == "type" {
			if err := json.Unmarshal(v, &s.Type); err != nil {
				return fmt.Errorf("type: want a string")
			}
			continue
		}
		s.Options[k] = v
	}
	return nil
}

// MarshalJSON writes the spec back in its fixture form.
func (s MatchSpec) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": s.Type}
	for k, v := range s.Options {
		m[k] = v
	}
	return json.Marshal(m)
}

// SpecError is a bad match spec; Key names the offending key within the
// case ("match.type", "match.pattern", "expected").
type SpecError struct {
	Key, Msg string
}

func (e *SpecError) Error() string { return e.Key + ": " + e.Msg }

// builder builds one matcher type; opts lists the options it accepts.
type builder struct {
	opts  []string
	build func(expected any, o options) (Matcher, error)
}

var builders = map[string]builder{
	"exact":      {nil, buildExact},
	"normalized": {nil, buildNormalized},
	"contains":   {[]string{"ignore_case"}, buildContains},
	"regex":      {[]string{"pattern"}, buildRegex},
	"one_of":     {nil, buildOneOf},
	"json_path":  {[]string{"path"}, buildJSONPath},
	"number":     {[]string{"tolerance", "relative", "pick"}, buildNumber},
	"json_equal": {nil, buildJSONEqual},
	// embedding_rank judges an embeddings answer (embedding.go).
	"embedding_rank": {[]string{"dimension"}, buildEmbeddingRank},
	"constraint":     {[]string{"min_words", "max_words", "keywords"}, buildConstraint},
	"judge":          {[]string{"rubric"}, buildJudge},
	"subset":         {nil, buildSubset},
}

// MatcherTypes lists the matcher type names, sorted.
func MatcherTypes() []string {
	names := make([]string, 0, len(builders))
	for n := range builders {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// jsonMatchers read the answer as JSON; a case using one needs a JSON body.
var jsonMatchers = map[string]bool{"json_path": true, "json_equal": true, "subset": true}

// NewMatcher builds the matcher a spec names. expected is the case's
// "expected" value (raw JSON; may be empty for regex and constraint). Errors
// are *SpecError naming the key at fault and what is allowed.
//
// The types, what "expected" holds for each, and their options:
//
//	exact       string; the trimmed answer equals it
//	normalized  string; equal ignoring case, runs of whitespace and a final "."
//	contains    string or [strings]; each appears; ignore_case: bool
//	regex       (display only); pattern: RE2, matched anywhere (anchor it yourself)
//	one_of      [strings]; normalized equal to one of them
//	json_path   any JSON; the value at path ($.total, items[0].sku) equals it
//	number      number; a number in the answer within tolerance (absolute, or
//	            relative: true for a fraction of expected); pick: "last"|"first"
//	json_equal  any JSON; the answer is the same JSON (key order, spacing and
//	            number spelling ignored)
//	constraint  (display only); min_words, max_words, keywords (each must
//	            start a word, case-insensitive; "a|b" accepts either)
//	judge       (none); rubric: a rubric file, else the scenario's; a
//	            judge model passes the answer after the level (package judge)
//	subset      object; the answer is JSON holding it (every key, its value
//	            holding the expected one; arrays and values equal)
func NewMatcher(spec MatchSpec, expected json.RawMessage) (Matcher, error) {
	b, ok := builders[spec.Type]
	if !ok {
		msg := fmt.Sprintf("unknown matcher %q", spec.Type)
		if spec.Type == "" {
			msg = "missing"
		}
		return nil, &SpecError{"match.type", msg + " (allowed: " + strings.Join(MatcherTypes(), ", ") + ")"}
	}
	for k := range spec.Options {
		if !contains(b.opts, k) {
			allowed := "none"
			if len(b.opts) > 0 {
				allowed = strings.Join(b.opts, ", ")
			}
			return nil, &SpecError{"match." + k, fmt.Sprintf("unknown option for %s (allowed: %s)", spec.Type, allowed)}
		}
	}
	if len(expected) == 0 && spec.Type != "regex" && spec.Type != "constraint" && spec.Type != "judge" && spec.Type != "embedding_rank" {
		return nil, &SpecError{"expected", "missing (" + spec.Type + " compares the answer with it)"}
	}
	var exp any
	if len(expected) > 0 {
		v, err := decodeOne(string(expected))
		if err != nil {
			return nil, &SpecError{"expected", "not JSON: " + err.Error()}
		}
		exp = v
	}
	return b.build(exp, options{spec.Type, spec.Options})
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// options decodes typed option values, turning type mistakes into SpecErrors.
type options struct {
	matcher string
	m       map[string]json.RawMessage
}

func (o options) get(key string, dst any, what string) (bool, error) {
	raw, ok := o.m[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return false, &SpecError{"match." + key, "want " + what}
	}
	return true, nil
}
