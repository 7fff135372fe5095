package gateci

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/report/github"
	"github.com/llmsla/llmsla/harness/secret"
)

// TestHostileGateMarkdown: benchmark and unit names holding markdown and
// HTML that would render (an image, a javascript: link, a table row, a
// code fence, </details>), control characters and a secret are shown as
// text in the step summary: no row forged, no tag or link rendered, the
// folded report not closed early, nothing of the secret left once the
// summary is redacted (the command redacts it after it is escaped).
func TestHostileGateMarkdown(t *testing.T) {
	const key = "sk-live_gate*0123456789[abc]"
	names := []string{
		`<img src=x onerror=alert(1)>`, `[click](javascript:alert(1))`, "a | b |\n| forged | row |", "```\n</details>\n# heading",
		"chat\x1b]0;pwned\x07", "ok\u202edeliaf", "endpoint " + key, "![](https://evil.example/p.png)", "www.evil.example", "<!-- x",
	}
	rep := &gate.Report{Base: "golden/baseline.txt", New: "results/latest.txt", Compared: len(names)}
	for _, n := range names {
		rep.Regressions = append(rep.Regressions, gate.Finding{Benchmark: n, Unit: "ttft-p95-ms " + n, Family: gate.FamilyLatency, Old: 20, New: 30,
			PAdj: 0.001, N1: 10, N2: 10, Tolerance: gate.Tolerance{Rel: 0.1}})
	}
	var b strings.Builder
	require.NoError(t, WriteMarkdown(&b, rep))
	md := string(secret.New(key).RedactBytes([]byte(b.String())))
	rows := 0
	body, folded, _ := strings.Cut(md, "<details>")
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| |") {
			rows++
			assert.Equal(t, 8, strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"), "one row's cells: %s", line)
		}
	}
	assert.Equal(t, len(names), rows, "no row forged")
	for _, re := range []string{`(^|[^\\])<`, `(^|[^\\])\]\(`, `(^|[^\\])!\[`, "\x1b", "\u202e", "0123456789"} {
		assert.NotRegexp(t, re, body, "rendered or leaked in the table")
	}
	assert.NotRegexp(t, "[\x1b\x07\u202e]", folded, "the folded report shows control characters escaped")
	assert.NotContains(t, md, "0123456789", "a part of the secret left")
	assert.Equal(t, 1, strings.Count(folded, "</details>")-strings.Count(folded, "\n</details>\n# heading"), "the folded report closed once, at its end")
	for _, a := range Annotations(rep) {
		line := github.Annotation(a).String()
		assert.False(t, strings.ContainsAny(line, "\n\r\x1b\u202e"), "%q", line)
	}
}
