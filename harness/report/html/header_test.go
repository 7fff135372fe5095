package html

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
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

// wideBoard is two endpoints whose names are too long for a legend beside
// the data, at two concurrency levels, with failures of two kinds.
func wideBoard() *report.Board {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var samples []sample.Sample
	for e, ep := range []string{"a-gateway-in-front-of-gpt-4o-mini-2024-07-18-eu-west", "the-self-hosted-llama-3.1-8b-instruct-on-vllm"} {
		for _, c := range []int{1, 4} {
			for i := range 20 {
				d := time.Duration(40*(e+1)*c+i) * time.Millisecond
				s := sample.Sample{Scenario: "chat", Endpoint: ep, Level: sample.NewLevel("concurrency", c), Run: ep + fmt.Sprint(c), Seq: i,
					Start: t0.Add(time.Duration(i) * time.Second), TTFT: d, TTFA: d, Total: d + 50*time.Millisecond, OutputTokens: 30, Finish: "stop"}
				if i == 0 {
					s.Fail(&sample.RequestError{Kind: []sample.ErrorKind{sample.KindRateLimited, sample.KindTruncated}[e]})
				}
				samples = append(samples, s)
			}
		}
	}
	return report.NewBoard(samples, report.Options{})
}

// checkWideLegends: a legend too wide to stand beside the data goes under
// it, and covers none of it there either.
func checkWideLegends(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, wideBoard()))
	page := filepath.Join(dir, "wide.html")
	require.NoError(t, os.WriteFile(page, buf.Bytes(), 0o644))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+page)))
	plots := map[string]legendLayout{}
	for _, p := range checkLegends(t, ctx) {
		plots[p.ID] = p
	}
	for _, id := range []string{"ttft-cdf", "total-cdf", "throughput-load"} { // legends of endpoint names
		assert.True(t, plots[id].Legend, "wide page, %s: no legend", id)
		assert.True(t, plots[id].BelowData, "wide page, %s: a legend of long names beside the data leaves it no room: want it below", id)
	}
	assert.True(t, plots["errors"].Legend && !plots["errors"].BelowData, "wide page, errors: its legend of error kinds fits beside the data")
}
