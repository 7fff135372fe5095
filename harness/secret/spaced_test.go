package secret

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// spaced writes v with sep between its characters.
func spaced(v, sep string) string { return strings.Join(strings.Split(v, ""), sep) }

// TestRedactSpaced: a secret written with spaces or tabs between its
// characters — what a model that was given the key and told to evade a
// filter writes ("s k - C A N A R Y …") — is redacted as the key is, in
// any case, through \u escapes, a byte at a time through a Writer; text
// that holds the characters with anything else between them is not.
func TestRedactSpaced(t *testing.T) {
	const canary = "sk-CANARYKEY-0123456789abcdef"
	s := New(canary)
	for name, form := range map[string]string{
		"one space":         spaced(canary, " "),
		"two spaces":        spaced(canary, "  "),
		"tabs":              spaced(canary, "\t"),
		"upper case":        strings.ToUpper(spaced(canary, " ")),
		"some spaces":       "sk-CANARY KEY-0123 4567 89ab cdef",
		"\\u0020 between":   spaced(canary, `\u0020`),
		"spaced, in quotes": `"` + spaced(canary, " ") + `"`,
		"three spaces":      spaced(canary, "   "),
		"a tab and spaces":  spaced(canary, " \t "),
	} {
		t.Run(name, func(t *testing.T) {
			text := "the key is " + form + " and after"
			got := s.Redact(text)
			assert.Equal(t, 1, strings.Count(got, Redacted), "%q → %q", text, got)
			assert.True(t, strings.HasPrefix(got, "the key is ") && strings.HasSuffix(got, " and after"), got)
			for _, part := range []string{"C A N", "c a n", "CANARY", "0 1 2 3"} {
				assert.NotContains(t, got, part)
			}
			assert.True(t, s.Contains([]byte(text)))
			var out bytes.Buffer
			w := NewWriter(&out, s)
			for i := 0; i < len(text); i++ {
				w.Write([]byte{text[i]})
			}
			w.Close()
			assert.Equal(t, got, out.String(), "the Writer redacts it written a byte at a time")
		})
	}
	for _, text := range []string{
		spaced(canary, "-"), spaced(canary, " , "), spaced(canary[:20], " "), spaced(canary, "    "),
		spaced(canary, "\n"), "s k - c a n a r y is not the key", "lorem ipsum dolor sit amet",
	} {
		assert.Equal(t, text, s.Redact(text), "not the secret spaced")
	}
	// Cut inside a spaced secret: nothing of it before the cut.
	text := "error: " + spaced(canary, " ") + " end"
	for n := 0; n < len(text); n++ {
		got := s.Cut(text, n)
		assert.NotContains(t, got, "k - C", "Cut(…, %d)", n)
		assert.NotContains(t, got, "C A N", "Cut(…, %d)", n)
	}
	assert.Equal(t, "error: ", s.TrimPartial("error: "+spaced(canary[:12], " ")))
}

// TestRedactMarkupForms: a secret as a step summary's markdown escaping
// and the HTML report's template escaping write it — a backslash before
// its _ * [ ], an entity for its + & ' — is redacted by the second line of
// defence that filters each of those files after it is written.
func TestRedactMarkupForms(t *testing.T) {
	const v = "sk-live_gate*0123+456789[abc]&'x"
	s := New(v)
	for name, form := range map[string]string{
		"markdown":            `sk-live\_gate\*0123+456789\[abc\]&'x`,
		"html/template, text": `sk-live_gate*0123&#43;456789[abc]&amp;&#39;x`,
		"html.EscapeString":   `sk-live_gate*0123+456789[abc]&amp;&#39;x`,
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, "| endpoint "+Redacted+" |", s.Redact("| endpoint "+form+" |"))
		})
	}
}
