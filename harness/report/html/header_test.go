package html

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/report"
)

// TestHTMLHeader: the page says what it measured — the commit, when (the
// samples' t0, not when the page was written), the configuration, and
// each endpoint with its model and host — escaped, as all of it comes
// from files.
func TestHTMLHeader(t *testing.T) {
	b := testBoard(t)
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, b))
	page := buf.String()
	for _, want := range []string{
		"<dt>commit</dt><dd>not recorded (no results file beside the samples names it)</dd>",
		"<dt>run</dt><dd>2026-01-01 00:00:00 – 00:00:",
		"hosted: model model-hosted; local: model model-local</dd>",
	} {
		assert.Contains(t, page, want)
	}

	run := report.NewRunInfo(nil, nil)
	run.Commit, run.Config = "abc123-dirty", "sla.yaml"
	run.Start, run.End = time.Date(2026, 1, 1, 23, 59, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 1, 13, 0, time.UTC)
	run.Endpoints = []report.EndpointInfo{{Name: "prod<script>", Models: []string{"gpt-4o-mini"}, Host: "api.openai.com"}}
	buf.Reset()
	require.NoError(t, WriteRun(&buf, b, run))
	page = buf.String()
	for _, want := range []string{
		"<dt>commit</dt><dd>abc123-dirty</dd>",
		"<dt>run</dt><dd>2026-01-01 23:59:00 – 2026-01-02 00:01:13 UTC (2m13s)</dd>",
		"<dt>config</dt><dd>sla.yaml</dd>",
		"prod&lt;script&gt;: model gpt-4o-mini at api.openai.com",
	} {
		assert.Contains(t, page, want)
	}
	assert.NotContains(t, page, "prod<script>")
	assert.False(t, strings.Contains(page, "<dt>run</dt><dd>not recorded"), "the run's date is in the samples")
}
