// Package escape is llmsla's one output-escaping layer. Text that came from
// outside — an endpoint's answers, errors, response ids and finish reasons;
// the names a samples, fixture or configuration file holds (endpoints,
// models, scenarios, levels, case ids) — is hostile where it is printed: a
// terminal obeys the control sequences in it (ESC sets the window title,
// clears the screen, writes the clipboard with OSC 52; CR overwrites a
// line; BEL rings), markdown renders its tags, links and images and a
// newline in it forges a table row, a spreadsheet runs a CSV cell that
// starts with "=" as a formula. Each function here escapes for one place:
//
//   - [Text]: one line of a terminal or of go test output, every control
//     character shown as an escape (\n, \x1b, \u202e); [Lines] the same
//     but for tab, newline and CR, for a format that carries line ends.
//   - [Markdown]: inline markdown (a table cell, a list item): Text, then
//     every character markdown reads as syntax backslash-escaped, so that
//     it renders as the text it is.
//   - [CSV]: one CSV cell: Text, then a cell that a spreadsheet would read
//     as a formula is prefixed with "'".
//   - [JSON]: JSON that encoding/json wrote: the runes it leaves raw and a
//     terminal obeys (DEL, C1 controls, bidi overrides) as \u escapes.
//   - [Writer]: a stream for a terminal (a command's stdout), every control
//     character but newline and tab escaped as Text escapes it: the last
//     line of defence behind the escaping of each field.
//
// HTML is written by html/template, which escapes for HTML itself.
//
// [CheckLine] and [CheckFileName] validate names where they are loaded, for
// names that end up in benchmark lines and file names, where an escape
// would change them: a name that needs one is refused with what is allowed.
package escape

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// hostile reports whether a terminal, an editor or a browser acts on r
// instead of showing it: the C0 and C1 control characters and DEL, the
// line and paragraph separators (a newline to some), and the bidi
// controls, which reorder what is shown around them (a name reading
// "ok" that is stored otherwise).
func hostile(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separator
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // arabic letter mark, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // embeddings, overrides, isolates
		return true
	}
	return false
}

// clean reports whether s needs no escape: every byte printable ASCII, or
// every rune valid and not hostile.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			goto slow
		}
	}
	return true
slow:
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || hostile(r) {
			return false
		}
		i += n
	}
	return true
}

// Text escapes s for one line of a terminal or of go test output: each
// control character (newline, CR and tab among them), DEL, C1 control,
// line separator and bidi control is written as Go writes it in a quoted
// string (\n, \r, \t, \x1b, \u009b, \u202e), and so is each byte that is
// not UTF-8 (\xff). Everything else is kept, backslashes too: the point is
// that nothing acts and nothing hides, not that the text can be unquoted.
func Text(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	writeEscaped(&b, s, "")
	return b.String()
}

// Lines is Text for text of several lines, whose own format carries its
// line ends (XML's character data, a workflow command's %0A): tab,
// newline and CR are kept, every other hostile rune and byte that is not
// UTF-8 escaped as Text escapes it.
func Lines(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	writeEscaped(&b, s, "\t\n\r")
	return b.String()
}

// writeEscaped writes s to b with every hostile rune escaped but those in
// keep.
func writeEscaped(b *strings.Builder, s, keep string) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case !hostile(r) || strings.ContainsRune(keep, r):
			b.WriteString(s[i : i+n])
		default:
			writeRune(b, r)
		}
		i += n
	}
}

// writeRune writes r as Go quotes it (\n, \x1b, \u202e): strconv's
// escapes, without the quotes.
func writeRune(b *strings.Builder, r rune) {
	q := strconv.QuoteRune(r)
	b.WriteString(q[1 : len(q)-1])
}

// markdownSyntax are the characters markdown (CommonMark, and GitHub's
// extensions: tables, strikethrough, math, autolinks) reads as syntax
// wherever they are in a line: escapes, code spans, emphasis, links and
// images, table cells, strikethrough, math and e-mail autolinks.
// CommonMark renders a backslash-escaped ASCII punctuation character as
// that character.
const markdownSyntax = "\\`*_[]|~$@"

// Markdown escapes s for inline markdown — a table cell, a list item, a
// bold span — so that it renders as the text it is: Text first (so that a
// newline cannot end the cell or forge a row), then a backslash before
// each character of markdown syntax, which stops links and images ([x](u),
// ![](u)), emphasis, code spans and "|" from acting; before a "<" that
// would open a tag (<img>, <a href>, <!--) and an "&" that would start an
// entity; before the ":" of "://" and the "." of "www.", which GitHub
// would autolink; and before what would start a block at the start of s
// (a heading "#", a quote ">", a list "- ", "+ " or "1. "). The rendered
// text is s as Text shows it.
func Markdown(s string) string {
	s = Text(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		if markdownActs(s, i) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// markdownActs reports whether s[i] would act as markdown syntax.
func markdownActs(s string, i int) bool {
	c := s[i]
	next := byte(' ')
	if i+1 < len(s) {
		next = s[i+1]
	}
	letter := next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z'
	switch {
	case strings.IndexByte(markdownSyntax, c) >= 0:
		return true
	case c == '<':
		return letter || next == '/' || next == '!' || next == '?'
	case c == '&':
		return letter || next == '#'
	case c == ':':
		return strings.HasPrefix(s[i+1:], "//")
	case c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
		return true
	case i == 0:
		return c == '#' || c == '>' || (c == '-' || c == '+') && (next == ' ' || len(s) == 1)
	case c == '.' || c == ')':
		// An ordered list marker: the digits that start s, then a space.
		return strings.TrimLeft(s[:i], "0123456789") == "" && (next == ' ' || i+1 == len(s))
	}
	return false
}

// CSV escapes s for one cell of a CSV file that a spreadsheet may open:
// Text first (a CR or tab would be one more way in), then a cell that
// starts with a character a spreadsheet reads as the start of a formula
// (= + - @, and tab or CR, which some strip before looking) gets a leading
// "'", which shows the text as text (OWASP's advice on CSV injection).
// Figures are written as numbers, not through CSV: a negative one is a
// number.
func CSV(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + Text(s)
	}
	return Text(s)
}

// JSON escapes what encoding/json leaves raw in b, a JSON text it wrote,
// and a terminal acts on: DEL, the C1 controls and the bidi controls, each
// as a \u escape. Those runes can only be inside strings (JSON's syntax is
// ASCII), where \u escapes stand for the same runes, so the JSON means
// what it meant. encoding/json already escapes the C0 controls and the
// line separators; bytes that are not UTF-8 it wrote as U+FFFD.
func JSON(b []byte) []byte {
	if clean(string(b)) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x20 && hostile(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
