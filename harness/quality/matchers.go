package quality

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// The matcher types, one builder each. See NewMatcher for the options.

func wantString(exp any, matcher string) (string, error) {
	s, ok := exp.(string)
	if !ok {
		return "", &SpecError{"expected", matcher + " wants a string"}
	}
	return s, nil
}

func buildExact(exp any, _ options) (Matcher, error) {
	want, err := wantString(exp, "exact")
	if err != nil {
		return nil, err
	}
	// Surrounding whitespace is trimmed: a trailing newline is transport,
	// not content.
	return MatcherFunc(func(got string) (bool, string) {
		if strings.TrimSpace(got) == want {
			return true, "exact"
		}
		return false, fmt.Sprintf("want exactly %q", want)
	}), nil
}

// normalize folds case and collapses whitespace, and drops the trailing
// punctuation models like to add ("Positive.").
func normalize(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimRightFunc(s, func(r rune) bool { return r == '.' || r == '!' })
}

func buildNormalized(exp any, _ options) (Matcher, error) {
	want, err := wantString(exp, "normalized")
	if err != nil {
		return nil, err
	}
	nw := normalize(want)
	return MatcherFunc(func(got string) (bool, string) {
		if normalize(got) == nw {
			return true, "normalized"
		}
		return false, fmt.Sprintf("want %q ignoring case and spacing", want)
	}), nil
}

func buildContains(exp any, o options) (Matcher, error) {
	var subs []string
	switch x := exp.(type) {
	case string:
		subs = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, &SpecError{"expected", "contains wants a string or an array of strings"}
			}
			subs = append(subs, s)
		}
	default:
		return nil, &SpecError{"expected", "contains wants a string or an array of strings"}
	}
	var fold bool
	if _, err := o.get("ignore_case", &fold, "true or false"); err != nil {
		return nil, err
	}
	return MatcherFunc(func(got string) (bool, string) {
		for _, s := range subs {
			g, w := got, s
			if fold {
				g, w = strings.ToLower(g), strings.ToLower(w)
			}
			if !strings.Contains(g, w) {
				return false, fmt.Sprintf("missing %q", s)
			}
		}
		return true, "contains all"
	}), nil
}

func buildRegex(_ any, o options) (Matcher, error) {
	var pat string
	if ok, err := o.get("pattern", &pat, "a string (RE2 syntax)"); err != nil {
		return nil, err
	} else if !ok {
		return nil, &SpecError{"match.pattern", "missing (regex needs a pattern, RE2 syntax)"}
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, &SpecError{"match.pattern", "bad regex: " + err.Error()}
	}
	return MatcherFunc(func(got string) (bool, string) {
		if re.MatchString(got) {
			return true, "matches /" + pat + "/"
		}
		return false, "does not match /" + pat + "/"
	}), nil
}

func buildOneOf(exp any, _ options) (Matcher, error) {
	arr, ok := exp.([]any)
	if !ok || len(arr) == 0 {
		return nil, &SpecError{"expected", "one_of wants a non-empty array of strings"}
	}
	want := make([]string, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, &SpecError{"expected", "one_of wants a non-empty array of strings"}
		}
		want[i] = s
	}
	return MatcherFunc(func(got string) (bool, string) {
		ng := normalize(got)
		for _, w := range want {
			if ng == normalize(w) {
				return true, "one of"
			}
		}
		return false, fmt.Sprintf("want one of %q", want)
	}), nil
}

func buildJSONPath(exp any, o options) (Matcher, error) {
	var p string
	if ok, err := o.get("path", &p, "a string like $.total or items[0].sku"); err != nil {
		return nil, err
	} else if !ok {
		return nil, &SpecError{"match.path", "missing (json_path needs a path like $.total)"}
	}
	steps, err := parsePath(p)
	if err != nil {
		return nil, &SpecError{"match.path", err.Error()}
	}
	return MatcherFunc(func(got string) (bool, string) {
		doc, err := decodeOne(strings.TrimSpace(got))
		if err != nil {
			return false, "answer is not JSON"
		}
		v, err := lookup(doc, steps)
		if err != nil {
			return false, p + ": " + err.Error()
		}
		if jsonEqual(v, exp) {
			return true, p + " equal"
		}
		return false, fmt.Sprintf("%s = %s, want %s", p, compact(v), compact(exp))
	}), nil
}

func buildJSONEqual(exp any, _ options) (Matcher, error) {
	return MatcherFunc(func(got string) (bool, string) {
		doc, err := decodeOne(strings.TrimSpace(got))
		if err != nil {
			return false, "answer is not JSON"
		}
		if jsonEqual(doc, exp) {
			return true, "json equal"
		}
		return false, "JSON differs: " + firstDiff("$", exp, doc)
	}), nil
}

// firstDiff names the first place two decoded values differ, so that a
// report says "$.total: 120 != 125" rather than "not equal".
func firstDiff(at string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, wok := w[k]
			gv, gok := g[k]
			switch {
			case !gok:
				return at + "." + k + ": missing"
			case !wok:
				return at + "." + k + ": unexpected"
			case !jsonEqual(wv, gv):
				return firstDiff(at+"."+k, wv, gv)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: length %d, want %d", at, len(g), len(w))
		}
		for i := range w {
			if !jsonEqual(w[i], g[i]) {
				return firstDiff(fmt.Sprintf("%s[%d]", at, i), w[i], g[i])
			}
		}
	}
	return fmt.Sprintf("%s: %s, want %s", at, compact(got), compact(want))
}

// numberRE finds numbers as people write them: -3, 1,234.50, 6.02e23.
var numberRE = regexp.MustCompile(`[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+`)

// extractNumbers returns every number in s, in order.
func extractNumbers(s string) []float64 {
	var out []float64
	for _, m := range numberRE.FindAllString(s, -1) {
		if f, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64); err == nil {
			out = append(out, f)
		}
	}
	return out
}

func buildNumber(exp any, o options) (Matcher, error) {
	n, ok := exp.(json.Number)
	if !ok {
		return nil, &SpecError{"expected", "number wants a JSON number"}
	}
	want, _ := n.Float64()
	var tol float64
	var rel bool
	pick := "last"
	if _, err := o.get("tolerance", &tol, "a number ≥ 0"); err != nil {
		return nil, err
	}
	if tol < 0 || math.IsNaN(tol) {
		return nil, &SpecError{"match.tolerance", "want a number ≥ 0"}
	}
	if _, err := o.get("relative", &rel, "true or false"); err != nil {
		return nil, err
	}
	if _, err := o.get("pick", &pick, `"first" or "last"`); err != nil {
		return nil, err
	}
	if pick != "first" && pick != "last" {
		return nil, &SpecError{"match.pick", fmt.Sprintf("unknown %q (allowed: first, last)", pick)}
	}
	limit := tol
	if rel {
		limit = tol * math.Abs(want)
	}
	return MatcherFunc(func(got string) (bool, string) {
		nums := extractNumbers(got)
		if len(nums) == 0 {
			return false, "no number in the answer"
		}
		// The last number by default: models reason first and state the
		// result at the end ("... so the total is 42").
		g := nums[len(nums)-1]
		if pick == "first" {
			g = nums[0]
		}
		if d := math.Abs(g - want); d <= limit {
			return true, fmt.Sprintf("%g within %g of %g", g, limit, want)
		}
		return false, fmt.Sprintf("%g, want %g ± %g", g, want, limit)
	}), nil
}

func buildConstraint(_ any, o options) (Matcher, error) {
	var minW, maxW int
	var kws []string
	if _, err := o.get("min_words", &minW, "a whole number ≥ 0"); err != nil {
		return nil, err
	}
	if _, err := o.get("max_words", &maxW, "a whole number ≥ 0"); err != nil {
		return nil, err
	}
	if minW < 0 || maxW < 0 || (maxW > 0 && maxW < minW) {
		return nil, &SpecError{"match.max_words", fmt.Sprintf("want 0 ≤ min_words ≤ max_words (have %d, %d)", minW, maxW)}
	}
	if _, err := o.get("keywords", &kws, "an array of strings"); err != nil {
		return nil, err
	}
	if minW == 0 && maxW == 0 && len(kws) == 0 {
		return nil, &SpecError{"match", "constraint needs min_words, max_words or keywords"}
	}
	// A keyword matches at the start of a word, case-insensitively, so
	// "emission" finds "Emissions" but "rate" does not find "moderate".
	// "a|b" accepts either spelling.
	res := make([]*regexp.Regexp, len(kws))
	for i, kw := range kws {
		alts := strings.Split(kw, "|")
		for j, a := range alts {
			alts[j] = regexp.QuoteMeta(strings.TrimSpace(a))
		}
		res[i] = regexp.MustCompile(`(?i)\b(?:` + strings.Join(alts, "|") + `)`)
	}
	return MatcherFunc(func(got string) (bool, string) {
		n := len(strings.FieldsFunc(got, func(r rune) bool { return unicode.IsSpace(r) }))
		var probs []string
		if n < minW {
			probs = append(probs, fmt.Sprintf("%d words, want ≥ %d", n, minW))
		}
		if maxW > 0 && n > maxW {
			probs = append(probs, fmt.Sprintf("%d words, want ≤ %d", n, maxW))
		}
		for i, re := range res {
			if !re.MatchString(got) {
				probs = append(probs, fmt.Sprintf("missing keyword %q", kws[i]))
			}
		}
		if len(probs) > 0 {
			return false, strings.Join(probs, "; ")
		}
		return true, fmt.Sprintf("%d words, all keywords", n)
	}), nil
}
