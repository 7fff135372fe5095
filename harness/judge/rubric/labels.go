package rubric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/internal/jsonl"
)

// Label is a person's judgment of one answer: the item, and pass or fail
// (Pass), with the score on the rubric's scale when they gave one.
type Label struct {
	ID string
	Item
	Pass  bool
	Score *float64
	File  string
	Line  int
}

var labelKeys = []string{"id", "question", "reference", "answer", "label"}

// maxLabels bounds a labelled file: it is read whole.
const maxLabels = 64 << 20

// LoadLabels reads a labelled fixture for r: JSON lines of {id, question,
// reference, answer, label}, label "pass" or "fail" or a score on r's
// scale (a 1-5 score passes from the threshold). Every problem — an
// unknown key, a missing text, a label outside the scale, an id twice —
// is returned, joined, each a *Error naming file:line and key,
// before any judge is asked.
func LoadLabels(path string, r *Rubric) ([]Label, error) {
	b, err := readBounded(path, maxLabels)
	if err != nil {
		return nil, err
	}
	var out []Label
	var errs []error
	first := map[string]int{}
	b = bytes.TrimPrefix(b, []byte("\ufeff")) // an editor's byte-order mark
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		fail := func(key, format string, a ...any) {
			errs = append(errs, &Error{path, i + 1, key, fmt.Sprintf(format, a...)})
		}
		l, ok := parseLabel(line, r, fail)
		if !ok {
			continue
		}
		l.File, l.Line = path, i+1
		if at, dup := first[l.ID]; dup {
			fail("id", "duplicate %q (first on line %d)", l.ID, at)
			continue
		}
		first[l.ID] = i + 1
		out = append(out, l)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, &Error{path, 1, "id", "no labelled answers in the file"}
	}
	return out, nil
}

// parseLabel reads one line, naming what is wrong with it.
func parseLabel(line []byte, r *Rubric, fail func(key, format string, a ...any)) (Label, bool) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		fail("json", "not a JSON object: %v", err)
		return Label{}, false
	}
	if k := jsonl.RepeatedKey(line); k != "" {
		fail(escape.Text(k), "given twice: which one is meant is not known")
		return Label{}, false
	}
	var l Label
	ok := true
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := raw[k]
		var dst *string
		switch k {
		case "id":
			dst = &l.ID
		case "question":
			dst = &l.Question
		case "reference":
			dst = &l.Reference
		case "answer":
			dst = &l.Answer
		case "label":
			ok = l.setLabel(v, r, fail) && ok
			continue
		default:
			fail(k, "unknown key (allowed: %s)", strings.Join(labelKeys, ", "))
			ok = false
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			fail(k, "want a string")
			ok = false
		}
	}
	ok = l.checkTexts(r, raw, fail) && ok
	l.Item.Case = l.ID
	return l, ok
}

// checkTexts: a label has its id (a file name: reports name it), its
// question, answer and label, and a reference where r shows one.
func (l *Label) checkTexts(r *Rubric, raw map[string]json.RawMessage, fail func(key, format string, a ...any)) bool {
	ok := true
	for _, req := range []struct{ key, v string }{{"id", l.ID}, {"question", l.Question}, {"answer", l.Answer}, {"label", string(raw["label"])}} {
		if strings.TrimSpace(req.v) == "" {
			fail(req.key, "missing")
			ok = false
		}
	}
	if l.ID != "" {
		if err := escape.CheckFileName(l.ID); err != nil {
			fail("id", "%v", err)
			ok = false
		}
	}
	switch {
	case r.Reference && raw["reference"] == nil:
		fail("reference", "missing: the rubric (%s) shows the judge a reference answer", r.Where())
		ok = false
	case r.Reference && strings.TrimSpace(l.Reference) == "":
		fail("reference", "empty, and the rubric shows the judge a reference")
		ok = false
	}
	return ok
}

// setLabel reads a label: "pass", "fail", or a score on r's scale.
func (l *Label) setLabel(v json.RawMessage, r *Rubric, fail func(key, format string, a ...any)) bool {
	var word string
	if json.Unmarshal(v, &word) == nil {
		switch word {
		case "pass", "fail":
			l.Pass = word == "pass"
			return true
		}
		fail("label", "%q is not a label (allowed: pass, fail, or a score from %g to %g)", word, r.Min(), r.Max())
		return false
	}
	var score float64
	if err := json.Unmarshal(v, &score); err != nil || math.IsNaN(score) {
		fail("label", "%s is not a label (allowed: pass, fail, or a score from %g to %g)", v, r.Min(), r.Max())
		return false
	}
	if score < r.Min() || score > r.Max() || (r.Scale == PassFail && score != 0 && score != 1) {
		fail("label", "%v is outside the rubric's scale %s (allowed: pass, fail, or a score from %g to %g)", score, r.Scale, r.Min(), r.Max())
		return false
	}
	l.Score, l.Pass = &score, r.Passes(score)
	return true
}
