package secret

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// span is a secret found in a text: text[from:to].
type span struct{ from, to int }

// find returns where text holds a form of a secret, in order, overlaps
// merged; with first, it stops at the first found.
func (s *Set) find(text string, first bool) []span {
	var out []span
	search := func(in string, groups []group, orig func(int) int, end func(int) int) bool {
		for _, g := range groups {
			for i := 0; ; i++ {
				j := strings.Index(in[i:], g.anchor)
				if j < 0 {
					break
				}
				i += j
				for _, f := range g.forms { // longest first
					if strings.HasPrefix(in[i:], f) {
						out = append(out, span{orig(i), end(i + len(f))})
						if first {
							return true
						}
						break
					}
				}
			}
		}
		return false
	}
	v := newView(text)
	same := func(i int) int { return i }
	if search(v.text, s.foldedGroups, v.orig, v.end) || search(text, s.exactGroups, same, same) {
		return out
	}
	for _, f := range s.spaced {
		var found bool
		if out, found = findSpaced(out, v, f, first); found {
			return out
		}
	}
	if len(out) < 2 {
		return out
	}
	slices.SortFunc(out, func(a, b span) int { return a.from - b.from })
	merged := out[:1]
	for _, r := range out[1:] {
		if last := &merged[len(merged)-1]; r.from < last.to {
			last.to = max(last.to, r.to)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// view is a text as the folded forms are matched in it: ASCII
// lower-cased, and each JSON \uXXXX escape, behind one backslash or more,
// decoded to its rune — the escapes of a raw chunk quoted in an error
// (\u002d), and of that error in a JSON file (\\u002d).
type view struct {
	text string
	n    int   // the length of the text viewed
	pos  []int // offset in the text of each byte of view.text; nil when the same
}

func newView(text string) view {
	if !strings.Contains(text, `\u`) {
		return view{text: lowerASCII(text), n: len(text)}
	}
	b := make([]byte, 0, len(text))
	pos := make([]int, 0, len(text))
	for i := 0; i < len(text); {
		if r, n := unescape(text[i:]); n > 0 {
			var enc [utf8.UTFMax]byte
			for _, c := range enc[:utf8.EncodeRune(enc[:], r)] {
				b = append(b, lower(c))
				pos = append(pos, i)
			}
			i += n
			continue
		}
		b = append(b, lower(text[i]))
		pos = append(pos, i)
		i++
	}
	return view{text: string(b), n: len(text), pos: pos}
}

// orig is the offset in the text of byte i of the view.
func (v view) orig(i int) int {
	switch {
	case v.pos == nil:
		return i
	case i >= len(v.pos):
		return v.n
	}
	return v.pos[i]
}

// end is the offset in the text where a match that ends before byte i of
// the view ends: past the whole escape the match ended in.
func (v view) end(i int) int {
	if v.pos == nil {
		return i
	}
	for i > 0 && i < len(v.pos) && v.pos[i] == v.pos[i-1] {
		i++
	}
	return v.orig(i)
}

// unescape decodes a \uXXXX escape behind one backslash or more at the
// start of s: the rune and the bytes it took, or n 0 when there is none
// (or it is half a surrogate pair, left as it is).
func unescape(s string) (r rune, n int) {
	k := 0
	for k < len(s) && s[k] == '\\' {
		k++
	}
	if k == 0 || len(s) < k+5 || s[k] != 'u' {
		return 0, 0
	}
	for _, c := range []byte(s[k+1 : k+5]) {
		d, ok := hexDigit(c)
		if !ok {
			return 0, 0
		}
		r = r<<4 | rune(d)
	}
	if r >= 0xd800 && r < 0xe000 {
		return 0, 0
	}
	return r, k + 5
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// lowerASCII lower-cases the ASCII letters of s alone, so that every byte
// keeps its offset (strings.ToLower may change lengths).
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = lower(b[j])
			}
			return string(b)
		}
	}
	return s
}

// group is forms that begin alike, searched for in one pass: the text is
// scanned for their common beginning (anchor), and each place it is found
// checked for each form. A value's forms mostly begin as the value does
// (sk-…, its URL, JSON, markdown escapes), so a text costs a pass per
// group rather than per form.
type group struct {
	anchor string
	forms  []string // longest first
}

// anchorLen is the beginning forms are grouped by: every form is at least
// MinLen bytes.
const anchorLen = 4

// groupForms groups forms (longest first) by their first anchorLen bytes,
// each group's anchor the longest beginning its forms share.
func groupForms(forms []string) []group {
	var out []group
	at := map[string]int{}
	for _, f := range forms {
		k := f[:min(anchorLen, len(f))]
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, group{anchor: f})
		}
		g := &out[i]
		g.forms = append(g.forms, f)
		n := 0
		for n < len(g.anchor) && n < len(f) && g.anchor[n] == f[n] {
			n++
		}
		g.anchor = g.anchor[:n]
	}
	return out
}
