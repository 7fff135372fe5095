// Package secret keeps the secrets of a configuration out of everything
// llmsla writes: samples, test output, golden and .got files, diffs,
// results, reports and error messages. A server may send a secret back —
// an echo of the request in an answer or an error — so redaction is by
// value, wherever a response's bytes go.
//
// A [Set] holds the values (the API keys, every value of a base URL's
// query, every custom header value) in each form they can take in output:
// as they are, URL-escaped, JSON-escaped. [Set.Redact] replaces each with
// "[redacted]"; [Set.Cut] redacts and then shortens, and drops what is
// left of a secret at the cut, so that no prefix of one survives; a
// [Writer] redacts a stream line by line.
//
// Values shorter than [MinLen] bytes are not secrets here: "true", a
// region or a version number would match ordinary text everywhere, and a
// key that short is no protection anyway.
package secret

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// MinLen is the shortest value a Set redacts.
const MinLen = 8

// Redacted replaces a secret.
const Redacted = "[redacted]"

// Set is a set of secret values. The zero value and nil are empty sets,
// which change nothing.
type Set struct {
	values []string
	forms  []string // every form of every value, longest first
	r      *strings.Replacer
}

// New returns the set of values, skipping those shorter than MinLen.
func New(values ...string) *Set {
	s := &Set{}
	for _, v := range values {
		if len(v) < MinLen || slices.Contains(s.values, v) {
			continue
		}
		s.values = append(s.values, v)
		for _, f := range forms(v) {
			if !slices.Contains(s.forms, f) {
				s.forms = append(s.forms, f)
			}
		}
	}
	// Longest first: where two forms match at one place, the longer is
	// replaced whole (strings.Replacer tries them in argument order).
	slices.SortStableFunc(s.forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(s.forms))
	for _, f := range s.forms {
		pairs = append(pairs, f, Redacted)
	}
	s.r = strings.NewReplacer(pairs...)
	return s
}

// forms are the ways a value can appear in output: as it is, escaped for a
// URL's query or path (Go's errors quote the URL they failed on), and
// escaped in a JSON string (the samples file), with and without HTML
// escaping.
func forms(v string) []string {
	out := []string{v, url.QueryEscape(v), url.PathEscape(v)}
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

// longest is the length of the longest form.
func (s *Set) longest() int {
	if s.Empty() {
		return 0
	}
	return len(s.forms[0])
}

// Empty reports whether the set has no value.
func (s *Set) Empty() bool { return s == nil || len(s.forms) == 0 }

// Redact replaces every secret in text.
func (s *Set) Redact(text string) string {
	if s.Empty() {
		return text
	}
	return s.r.Replace(text)
}

// RedactBytes replaces every secret in b; b itself is left as it was when
// it holds none.
func (s *Set) RedactBytes(b []byte) []byte {
	if s.Empty() || !s.Contains(b) {
		return b
	}
	return []byte(s.r.Replace(string(b)))
}

// Contains reports whether b holds a secret.
func (s *Set) Contains(b []byte) bool {
	if s.Empty() {
		return false
	}
	for _, f := range s.forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	return false
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
// secret: what is left of one when text was cut short in the middle of
// it. Call it on text that was cut, never on whole text, whose end is
// its own.
func (s *Set) TrimPartial(text string) string {
	if s.Empty() {
		return text
	}
	drop := 0
	for _, f := range s.forms {
		for k := min(len(f)-1, len(text)); k > drop; k-- {
			if strings.HasSuffix(text, f[:k]) {
				drop = k
				break
			}
		}
	}
	return text[:len(text)-drop]
}
