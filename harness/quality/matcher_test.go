package quality

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestMatchers(t *testing.T) {
	cases := map[string]struct {
		match, expected, got string
		ok                   bool
	}{
		"exact/pass":            {`{"type":"exact"}`, `"positive"`, "positive\n", true},
		"exact/fail case":       {`{"type":"exact"}`, `"positive"`, "Positive", false},
		"normalized/pass":       {`{"type":"normalized"}`, `"not spam"`, "  Not   SPAM.\n", true},
		"normalized/fail":       {`{"type":"normalized"}`, `"not spam"`, "spam", false},
		"contains/pass":         {`{"type":"contains"}`, `["Paris","France"]`, "Paris, France", true},
		"contains/fail":         {`{"type":"contains"}`, `"Paris"`, "paris", false},
		"contains/ignore_case":  {`{"type":"contains","ignore_case":true}`, `"Paris"`, "paris", true},
		"regex/pass":            {`{"type":"regex","pattern":"(?i)^\\W*refund\\W*$"}`, ``, "Refund.", true},
		"regex/fail":            {`{"type":"regex","pattern":"(?i)^\\W*refund\\W*$"}`, ``, "a refund request", false},
		"one_of/pass":           {`{"type":"one_of"}`, `["neutral","mixed"]`, "Mixed", true},
		"one_of/fail":           {`{"type":"one_of"}`, `["neutral","mixed"]`, "negative", false},
		"json_path/pass":        {`{"type":"json_path","path":"$.total"}`, `125.5`, `{"total": 125.50}`, true},
		"json_path/index":       {`{"type":"json_path","path":"items[1].sku"}`, `"B-2"`, `{"items":[{"sku":"A-1"},{"sku":"B-2"}]}`, true},
		"json_path/fail value":  {`{"type":"json_path","path":"$.total"}`, `125.5`, `{"total": 120}`, false},
		"json_path/fail absent": {`{"type":"json_path","path":"$.total"}`, `125.5`, `{"sum": 125.5}`, false},
		"json_path/not json":    {`{"type":"json_path","path":"$.total"}`, `1`, `total: 1`, false},
		"number/exact":          {`{"type":"number"}`, `42`, "The answer is 42.", true},
		"number/last wins":      {`{"type":"number"}`, `42`, "6 times 7 is 42", true},
		"number/first":          {`{"type":"number","pick":"first"}`, `6`, "6 times 7 is 42", true},
		"number/thousands":      {`{"type":"number"}`, `1234.5`, "Total: $1,234.50", true},
		"number/abs tolerance":  {`{"type":"number","tolerance":0.5}`, `10`, "10.4", true},
		"number/rel tolerance":  {`{"type":"number","tolerance":0.01,"relative":true}`, `1000`, "about 1009", true},
		"number/outside":        {`{"type":"number","tolerance":0.01,"relative":true}`, `1000`, "about 1011", false},
		"number/none":           {`{"type":"number"}`, `3`, "three", false},
		"json_equal/key order":  {`{"type":"json_equal"}`, `{"a":1,"b":[1,2]}`, `{"b":[1, 2.0], "a":1}`, true},
		"json_equal/fail":       {`{"type":"json_equal"}`, `{"a":1,"b":[1,2]}`, `{"a":1,"b":[2,1]}`, false},
		"json_equal/extra key":  {`{"type":"json_equal"}`, `{"a":1}`, `{"a":1,"c":2}`, false},
		"constraint/pass":       {`{"type":"constraint","min_words":3,"max_words":6,"keywords":["solar","cost|price"]}`, ``, "Solar panel prices fell sharply.", true},
		"constraint/too long":   {`{"type":"constraint","max_words":3}`, ``, "one two three four", false},
		"constraint/too short":  {`{"type":"constraint","min_words":3}`, ``, "one two", false},
		"constraint/keyword":    {`{"type":"constraint","keywords":["rate"]}`, ``, "a moderate change", false},
		"constraint/plural":     {`{"type":"constraint","keywords":["emission"]}`, ``, "EMISSIONS fell", true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var spec MatchSpec
			if err := json.Unmarshal([]byte(tc.match), &spec); err != nil {
				t.Fatal(err)
			}
			m, err := NewMatcher(spec, json.RawMessage(tc.expected))
			if err != nil {
				t.Fatalf("NewMatcher: %v", err)
			}
			ok, detail := m.Match(tc.got)
			if ok != tc.ok {
				t.Errorf("Match(%q) = %v (%s), want %v", tc.got, ok, detail, tc.ok)
			}
			if detail == "" {
				t.Error("empty detail")
			}
		})
	}
}

func TestNewMatcherErrors(t *testing.T) {
	cases := map[string]struct {
		match, expected, key, msg string
	}{
		"unknown type":      {`{"type":"fuzzy"}`, `"x"`, "match.type", "allowed: constraint, contains, embedding_rank, exact"},
		"missing type":      {`{}`, `"x"`, "match.type", "missing"},
		"unknown option":    {`{"type":"exact","fold":true}`, `"x"`, "match.fold", "allowed: none"},
		"bad regex":         {`{"type":"regex","pattern":"(unclosed"}`, ``, "match.pattern", "bad regex"},
		"regex no pattern":  {`{"type":"regex"}`, ``, "match.pattern", "missing"},
		"missing expected":  {`{"type":"normalized"}`, ``, "expected", "missing"},
		"one_of not array":  {`{"type":"one_of"}`, `"x"`, "expected", "array"},
		"number not number": {`{"type":"number"}`, `"42"`, "expected", "JSON number"},
		"bad tolerance":     {`{"type":"number","tolerance":"small"}`, `1`, "match.tolerance", "number"},
		"bad pick":          {`{"type":"number","pick":"middle"}`, `1`, "match.pick", "allowed: first, last"},
		"bad path":          {`{"type":"json_path","path":"$.items[*]"}`, `1`, "match.path", "bad path"},
		"empty constraint":  {`{"type":"constraint"}`, ``, "match", "needs"},
		"min over max":      {`{"type":"constraint","min_words":9,"max_words":3}`, ``, "match.max_words", "min_words ≤ max_words"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var spec MatchSpec
			if err := json.Unmarshal([]byte(tc.match), &spec); err != nil {
				t.Fatal(err)
			}
			_, err := NewMatcher(spec, json.RawMessage(tc.expected))
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SpecError", err)
			}
			if se.Key != tc.key || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("err = %q, want key %q and message containing %q", err, tc.key, tc.msg)
			}
		})
	}
}
