package quality

import (
	"fmt"
	"sort"
	"strings"
)

// buildSubset is the subset matcher: the answer is JSON that holds
// expected — every key of an expected object is in the answer's object
// with a value that holds the expected one, recursively; arrays and
// other values are equal canonically (as json_equal compares them). A
// tool call's arguments are checked this way when only some of them are
// the case's point: {"city": "Paris"} whatever unit the model added.
func buildSubset(exp any, _ options) (Matcher, error) {
	if _, ok := exp.(map[string]any); !ok {
		return nil, &SpecError{"expected", "subset wants an object: the keys the answer's object must hold"}
	}
	return MatcherFunc(func(got string) (bool, string) {
		doc, err := decodeOne(strings.TrimSpace(got))
		if err != nil {
			return false, "answer is not JSON"
		}
		if at := missingFrom("$", exp, doc); at != "" {
			return false, "not a superset: " + at
		}
		return true, "holds the subset"
	}), nil
}

// missingFrom names the first place got does not hold want, "" when it
// does.
func missingFrom(at string, want, got any) string {
	w, ok := want.(map[string]any)
	if !ok {
		if jsonEqual(want, got) {
			return ""
		}
		return fmt.Sprintf("%s = %s, want %s", at, compact(got), compact(want))
	}
	g, ok := got.(map[string]any)
	if !ok {
		return fmt.Sprintf("%s = %s, want an object", at, compact(got))
	}
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		gv, present := g[k]
		if !present {
			return fmt.Sprintf("%s.%s missing", at, k)
		}
		if d := missingFrom(at+"."+k, w[k], gv); d != "" {
			return d
		}
	}
	return ""
}
