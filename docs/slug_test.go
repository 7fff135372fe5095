package docs

import (
	"slices"
	"strings"
	"testing"
)

// TestSlug: anchors as GitHub makes them, for the kinds of heading these
// docs have (code spans, punctuation, ×, slashes, apostrophes, letters
// outside ASCII, a repeated heading).
func TestSlug(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"code span":        {"## Reference (`sla.yaml`)", "reference-slayaml"},
		"slash":            {"### Interleaved A/B", "interleaved-ab"},
		"symbol between":   {"## Per run (one scenario × one endpoint)", "per-run-one-scenario--one-endpoint"},
		"apostrophe":       {"## Against the simulator's truth", "against-the-simulators-truth"},
		"underscore kept":  {"## The max_tokens key", "the-max_tokens-key"},
		"letters kept":     {"## Diátaxis-like Übersicht", "diátaxis-like-übersicht"},
		"link text":        {"## See [the gate](gate.md)", "see-the-gate"},
		"closing hashes":   {"## Errors ##", "errors"},
		"repeated heading": {"## Measured\n\n### Measured", "measured,measured-1"},
		"not in a fence":   {"```\n# not a heading\n```\n# Heading", "heading"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := strings.Join(headingAnchors(tc.doc), ","); got != tc.want {
				t.Errorf("anchors of %q: %q, want %q", tc.doc, got, tc.want)
			}
		})
	}
}

// TestLinksFound: links are read from prose, not from code.
func TestLinksFound(t *testing.T) {
	for name, tc := range map[string]struct {
		doc  string
		want []string
	}{
		"inline":        {"see [a](a.md) and ![b](b.png \"title\")", []string{"a.md", "b.png"}},
		"reference":     {"[gate]: docs/gate.md#in-ci", []string{"docs/gate.md#in-ci"}},
		"code span":     {"`[a](a.md)` and [b](b.md)", []string{"b.md"}},
		"code in text":  {"[`examples/x.yml`](../examples/x.yml)", []string{"../examples/x.yml"}},
		"fenced":        {"```md\n[a](a.md)\n```\n[b](b.md)", []string{"b.md"}},
		"not a fence":   {"  ```` ```json ```` fence [b](b.md)", []string{"b.md"}},
		"tilde fence":   {"~~~\n[a](a.md)\n~~~", nil},
		"unclosed span": {"a ` b [c](c.md)", []string{"c.md"}},
		"absolute kept": {"[x](https://example.com/a)", []string{"https://example.com/a"}},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, l := range links(tc.doc) {
				got = append(got, l.target)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("links of %q: %q, want %q", tc.doc, got, tc.want)
			}
		})
	}
}
