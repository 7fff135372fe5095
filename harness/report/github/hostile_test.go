package github

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileAnnotations: what a name or message from an endpoint or a
// file holds cannot act where the command is read — the job log renders
// ANSI and the annotation shows the text — nor start another command: a
// control character, an 8-bit CSI, a bidi override, bytes that are not
// UTF-8 are shown escaped, and the command stays one line.
func TestHostileAnnotations(t *testing.T) {
	for name, tc := range map[string]struct {
		a    Annotation
		want string
	}{
		"ESC and BEL":             {Annotation{Error, "t", "chat\x1b]0;pwned\x07 slow"}, `::error title=t::chat\x1b]0;pwned\a slow`},
		"NUL":                     {Annotation{Error, "", "a\x00b"}, `::error::a\x00b`},
		"an 8-bit CSI":            {Annotation{Error, "", "a\u009b2Jb"}, `::error::a\u009b2Jb`},
		"a bidi override":         {Annotation{Error, "", "ok\u202edeliaf"}, `::error::ok\u202edeliaf`},
		"a line separator":        {Annotation{Error, "", "a\u2028::warning::b"}, `::error::a\u2028::warning::b`},
		"bytes not UTF-8":         {Annotation{Error, "", "a\xffb"}, `::error::a\xffb`},
		"a title with an escape":  {Annotation{Error, "SLA\x1b[2J", "m"}, `::error title=SLA\x1b[2J::m`},
		"add-mask after a CRLF":   {Annotation{Error, "", "x\r\n::add-mask::y"}, "::error::x%0D%0A::add-mask::y"},
		"a stop-commands token":   {Annotation{Error, "", "x\n::stop-commands::tok"}, "::error::x%0A::stop-commands::tok"},
		"a title forging a value": {Annotation{Error, "a::b,file=x", "m"}, "::error title=a%3A%3Ab%2Cfile=x::m"},
	} {
		t.Run(name, func(t *testing.T) {
			got := tc.a.String()
			assert.Equal(t, tc.want, got)
			assert.False(t, strings.ContainsAny(got, "\r\n\x1b\x00\x07\u009b\u202e\u2028"), "%q", got)
			assert.True(t, utf8.ValidString(got))
		})
	}
}

// TestSummaryFull: a step summary that already holds GitHub's 1 MiB gets
// nothing more, and the caller is told so (it warns), rather than
// nothing said.
func TestSummaryFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("x\n", MaxSummary/2)), 0o644))
	err := AppendSummary(path, []byte("### gate FAIL\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already holds 1048576 bytes")
	b, _ := os.ReadFile(path)
	assert.Len(t, b, MaxSummary)
	assert.NoError(t, AppendSummary(path, nil), "nothing to append is no error")
}
