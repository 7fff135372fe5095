package html

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// TestHTMLEscapesNames: an endpoint or model name holding a tag, a script
// or terminal escapes is text on the page — in the table, the notes, the
// recommendation and the plots' SVG — never markup or a raw control
// character.
func TestHTMLEscapesNames(t *testing.T) {
	const tag = `<img src=x onerror=alert(1)><script>alert(2)</script>`
	const term = "\x1b]0;pwned\x07\u202e"
	var ss []sample.Sample
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{tag, "b" + term} {
		for j := range 10 {
			d := time.Duration(20+10*i+j) * time.Millisecond
			ss = append(ss, sample.Sample{Scenario: "chat", Endpoint: name, Model: name, Level: "concurrency=1", Run: "r" + name, Seq: j,
				Start: t0.Add(time.Duration(j) * time.Second), TTFT: d, TTFA: d, Total: 2 * d, OutputTokens: 10, TokenSource: sample.TokensUsage, Finish: "stop"})
		}
	}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, report.NewBoard(ss, report.Options{})))
	page := buf.String()
	assert.NotContains(t, page, "<img")
	assert.NotContains(t, page, "<script")
	assert.Contains(t, page, "&lt;img src=x onerror=alert(1)&gt;")
	assert.NoError(t, escape.CheckLine(strings.NewReplacer("\n", "", "\t", "").Replace(page)), "a raw control character in the page")
}
