// Package secret keeps the secrets of a configuration out of everything
// llmsla writes: samples, test output, golden and .got files, diffs,
// results, reports and error messages. A server may send a secret back —
// an echo of the request in an answer or an error — so redaction is by
// value, wherever a response's bytes go.
//
// A [Set] holds the values (the API keys, every value of a base URL's
// query, every custom header value) in each form they can take in output:
//
//   - as they are, in any case (a server that upper-cases what it echoes);
//   - URL-escaped (query and path), JSON-escaped (with and without HTML
//     escaping), and hex (lower or upper case) of the whole value;
//   - as a report escapes them — markdown's backslashes (escape.Markdown:
//     the step summary) and HTML's entities (html/template: the HTML
//     report) — for the filter each of those files goes through once
//     written;
//   - base64 of the whole value, standard or URL alphabet, padded or not;
//   - with any of their characters written as JSON \uXXXX escapes, behind
//     any number of backslashes (a raw chunk quoted in an error message,
//     and that message in a JSON samples file);
//   - spaced out, up to three spaces or tabs between its characters, on
//     one line ("s k - …": a model told to get a key past a filter, an
//     echo wrapped or aligned in columns).
//
// Not covered: a secret split or transformed otherwise (base64 of a text
// the secret is only part of, which shifts its alphabet; a hash of it;
// its characters interleaved with anything but spaces and tabs, or spaced
// across lines).
//
// [Set.Redact] replaces each form with "[redacted]"; [Set.Cut] redacts and
// then shortens, and drops what is left of a secret at the cut, so that no
// prefix of one survives; a [Writer] redacts a stream line by line.
//
// Values shorter than [MinLen] bytes are not secrets here: "true", a
// region or a version number would match ordinary text everywhere, and a
// key that short is no protection anyway.
package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/escape"
)

// MinLen is the shortest value a Set redacts.
const MinLen = 8

// Redacted replaces a secret.
const Redacted = "[redacted]"

// Set is a set of secret values. The zero value and nil are empty sets,
// which change nothing.
type Set struct {
	values []string
	// folded are the forms matched in any ASCII case and through \u
	// escapes, lower-cased; exact those matched as they are (base64, whose
	// case is its content). Both longest first: where two forms match at
	// one place, the longer is replaced whole.
	folded, exact []string
	// foldedGroups and exactGroups are the same forms grouped for the
	// search (groupForms).
	foldedGroups, exactGroups []group
	// spaced are the values matched spaced out (spacedForm), longest
	// first.
	spaced []spacedValue
}

// New returns the set of values, skipping those shorter than MinLen.
func New(values ...string) *Set {
	s := &Set{}
	for _, v := range values {
		if len(v) < MinLen || slices.Contains(s.values, v) {
			continue
		}
		s.values = append(s.values, v)
		for _, f := range foldedForms(v) {
			if f = lowerASCII(f); !slices.Contains(s.folded, f) {
				s.folded = append(s.folded, f)
			}
		}
		for _, f := range exactForms(v) {
			if !slices.Contains(s.exact, f) {
				s.exact = append(s.exact, f)
			}
		}
		if f, ok := spacedForm(v); ok && !slices.Contains(s.spaced, f) {
			s.spaced = append(s.spaced, f)
		}
	}
	longestFirst := func(a, b string) int { return len(b) - len(a) }
	slices.SortStableFunc(s.folded, longestFirst)
	slices.SortStableFunc(s.exact, longestFirst)
	s.foldedGroups, s.exactGroups = groupForms(s.folded), groupForms(s.exact)
	slices.SortStableFunc(s.spaced, func(a, b spacedValue) int { return len(b.f) - len(a.f) })
	return s
}

// foldedForms are the ways a value can appear in output whatever its case:
// as it is, escaped for a URL's query or path (Go's errors quote the URL
// they failed on), escaped in a JSON string (the samples file), with and
// without HTML escaping, and in hex.
func foldedForms(v string) []string {
	out := []string{v, url.QueryEscape(v), url.PathEscape(v), hex.EncodeToString([]byte(v)),
		escape.Markdown(v), html.EscapeString(v), templateText.Replace(v)}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, html := range []bool{true, false} {
		b.Reset()
		enc.SetEscapeHTML(html)
		if enc.Encode(v) == nil {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)[1:])
		}
	}
	return out
}

// templateText is how html/template escapes text in the HTML report.
var templateText = strings.NewReplacer("\x00", "\ufffd", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// exactForms are the base64 forms of a value: standard and URL alphabet,
// padded and not.
func exactForms(v string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		out = append(out, enc.EncodeToString([]byte(v)))
	}
	return out
}

// Union returns a set of the values of both.
func (s *Set) Union(o *Set) *Set {
	var vs []string
	if s != nil {
		vs = append(vs, s.values...)
	}
	if o != nil {
		vs = append(vs, o.values...)
	}
	return New(vs...)
}

// Values returns the secret values, for a refusal to name how many.
func (s *Set) Values() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.values)
}

// longest bounds the length in output of a form of a secret: the longest
// form with each of its bytes a \uXXXX escape behind two backslashes (a
// quoted escape in a JSON file), for a Writer to hold back.
func (s *Set) longest() int {
	if s.Empty() {
		return 0
	}
	n := len(s.folded[0])
	if len(s.exact) > 0 {
		n = max(n, len(s.exact[0]))
	}
	if len(s.spaced) > 0 {
		n = max(n, (1+maxGap)*len(s.spaced[0].f))
	}
	return 7 * n
}

// Empty reports whether the set has no value.
func (s *Set) Empty() bool { return s == nil || len(s.values) == 0 }

// Redact replaces every secret in text.
func (s *Set) Redact(text string) string {
	if s.Empty() {
		return text
	}
	found := s.find(text, false)
	if len(found) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, r := range found {
		b.WriteString(text[at:r.from])
		b.WriteString(Redacted)
		at = r.to
	}
	b.WriteString(text[at:])
	return b.String()
}

// RedactBytes replaces every secret in b; b itself is left as it was when
// it holds none.
func (s *Set) RedactBytes(b []byte) []byte {
	if s.Empty() || !s.Contains(b) {
		return b
	}
	return []byte(s.Redact(string(b)))
}

// Contains reports whether b holds a secret.
func (s *Set) Contains(b []byte) bool {
	return !s.Empty() && len(s.find(string(b), true)) > 0
}

// Cut redacts text and then, if it is longer than n bytes, cuts it there
// (on a rune boundary, adding "…") and trims what is left of a secret at
// the cut (see TrimPartial). Redacting first is the point: a text cut
// first keeps the part of a secret before the cut, which no longer
// matches the whole value.
func (s *Set) Cut(text string, n int) string {
	text = s.Redact(text)
	if len(text) <= n {
		return text
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return s.TrimPartial(text[:n]) + "…"
}

// TrimPartial drops the longest end of text that is the beginning of a
// form of a secret (in any case, through \u escapes): what is left of one
// when text was cut short in the middle of it. Call it on text that was
// cut, never on whole text, whose end is its own.
func (s *Set) TrimPartial(text string) string {
	if s.Empty() {
		return text
	}
	v := newView(text)
	cut := len(text)
	for _, f := range s.folded {
		if k := partialEnd(v.text, f); k > 0 {
			cut = min(cut, v.orig(len(v.text)-k))
		}
	}
	for _, f := range s.exact {
		if k := partialEnd(text, f); k > 0 {
			cut = min(cut, len(text)-k)
		}
	}
	for _, f := range s.spaced {
		if i := partialSpaced(v.text, f); i < len(v.text) {
			cut = min(cut, v.orig(i))
		}
	}
	return text[:cut]
}

// partialEnd is the length of the longest end of text that begins f and
// is shorter than f, 0 when there is none.
func partialEnd(text, f string) int {
	for k := min(len(f)-1, len(text)); k > 0; k-- {
		if strings.HasSuffix(text, f[:k]) {
			return k
		}
	}
	return 0
}
