package secret

import "strings"

// A secret spaced out — its characters with spaces or tabs between them,
// "s k - C A N A R Y" — is how a model that was given a key and told to
// get past a filter writes it, and how a wrapped or column-aligned echo
// breaks it: the characters of the key in order, each gap up to maxGap
// spaces or tabs, on one line (a line break ends the match: the Writer
// redacts line by line). Matched in the folded view (any case, through
// \u escapes), and against the value without its own spaces and tabs.
// Other separators (dashes, commas, other characters) are not covered: a
// run of them is ordinary text too often.

// maxGap bounds the spaces and tabs between two characters of a spaced
// secret.
const maxGap = 3

// spacedValue is a value matched spaced out: its form (spacedForm) and
// the index of its anchor, the character the search looks for first —
// the rarest in ordinary text, so that a text without the secret costs
// little more than one IndexByte over it.
type spacedValue struct {
	f      string
	anchor int
}

// spacedForm is the form a value is matched spaced in: lower-cased, its
// own spaces and tabs dropped; ok false when that leaves less than MinLen.
func spacedForm(v string) (spacedValue, bool) {
	f := strings.NewReplacer(" ", "", "\t", "").Replace(lowerASCII(v))
	if len(f) < MinLen {
		return spacedValue{}, false
	}
	a := 0
	for i := range len(f) {
		if commonness(f[i]) < commonness(f[a]) {
			a = i
		}
	}
	return spacedValue{f, a}, true
}

// commonness ranks how often a byte is in ordinary text and JSON:
// English letters by frequency, then digits, then the punctuation of
// prose and JSON; anything else is rare.
func commonness(c byte) int {
	const letters = "zqxjkvbpygfwmucldrhsnioate"
	if i := strings.IndexByte(letters, c); i >= 0 {
		return 20 + i
	}
	switch {
	case c >= '0' && c <= '9':
		return 15
	case strings.IndexByte(`".,:{}\-_/`, c) >= 0:
		return 50
	}
	return 0
}

func gap(c byte) bool { return c == ' ' || c == '\t' }

// spacedAround is the span of t holding f spaced with its anchor at i,
// ok false when it does not.
func spacedAround(t string, i int, v spacedValue) (from, to int, ok bool) {
	from = i
	for c := v.anchor - 1; c >= 0; c-- {
		for n := 0; n < maxGap && from > 0 && gap(t[from-1]); n++ {
			from--
		}
		if from == 0 || t[from-1] != v.f[c] {
			return 0, 0, false
		}
		from--
	}
	to = i + 1
	for c := v.anchor + 1; c < len(v.f); c++ {
		for n := 0; n < maxGap && to < len(t) && gap(t[to]); n++ {
			to++
		}
		if to >= len(t) || t[to] != v.f[c] {
			return 0, 0, false
		}
		to++
	}
	return from, to, true
}

// findSpaced appends where the view's text holds v spaced, as spans of
// the text; with first, it stops at the first found.
func findSpaced(out []span, vw view, v spacedValue, first bool) ([]span, bool) {
	t, a := vw.text, v.f[v.anchor]
	for i := 0; ; {
		j := strings.IndexByte(t[i:], a)
		if j < 0 {
			return out, false
		}
		i += j
		from, to, ok := spacedAround(t, i, v)
		if !ok {
			i++
			continue
		}
		out = append(out, span{vw.orig(from), vw.end(to)})
		if first {
			return out, true
		}
		i = to
	}
}

// partialSpaced is the start in t of the longest end of t that is the
// beginning of f spaced (a gap after it too), shorter than f; len(t) when
// there is none.
func partialSpaced(t string, v spacedValue) int {
	f := v.f
	best := len(t)
	for k := len(f) - 1; k > 0; k-- {
		i, ok := len(t), true
		for n := 0; n < maxGap && i > 0 && gap(t[i-1]); n++ {
			i-- // a cut just after a gap
		}
		for c := k - 1; c >= 0 && ok; c-- {
			if c < k-1 {
				for n := 0; n < maxGap && i > 0 && gap(t[i-1]); n++ {
					i--
				}
			}
			ok = i > 0 && t[i-1] == f[c]
			i--
		}
		if ok {
			best = i
			break
		}
	}
	return best
}
