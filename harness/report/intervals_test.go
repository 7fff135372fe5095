package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIntervalsReported: every report of a verdict gives its figures'
// intervals and says which objectives are undecided: the table, the
// markdown and the JSON summary.
func TestIntervalsReported(t *testing.T) {
	now := time.Now()
	var samples []sample.Sample
	for i := range 100 {
		d := time.Duration(500+i) * time.Millisecond // p95 595 ms against 600
		samples = append(samples, sample.Sample{Scenario: "chat", Endpoint: "e", Level: "concurrency=1", Run: "r", Seq: i,
			Start: now, TTFT: d, TTFA: d, Total: d, OutputTokens: 1, Finish: "stop"})
	}
	vs := []objective.Verdict{objective.Judge(samples, objective.MustParse(map[string]float64{"ttft_p95_ms": 600}))}
	var text, md, js bytes.Buffer
	Verdicts(&text, vs)
	VerdictsMarkdown(&md, vs)
	require.NoError(t, WriteSummary(&js, vs, RunInfo{}, 0))
	want := "intervals (chat endpoint=e concurrency=1, 95%): ttft p95 594 ms [589, 599] met"
	assert.Contains(t, text.String(), want)
	assert.Contains(t, md.String(), strings.NewReplacer("[", `\[`, "]", `\]`).Replace(want))
	var doc Summary
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	require.Len(t, doc.Levels[0].Intervals, 1)
	iv := doc.Levels[0].Intervals[0]
	assert.Equal(t, "ttft_p95_ms", iv.Objective)
	assert.Equal(t, "met", iv.State)
	require.NotNil(t, iv.Hi)
	assert.Equal(t, 599.0, *iv.Hi)

	// 40 of them: the p95's upper side is unbounded, and says so.
	vs = []objective.Verdict{objective.Judge(samples[60:], objective.MustParse(map[string]float64{"ttft_p95_ms": 600}))}
	text.Reset()
	Verdicts(&text, vs)
	assert.Contains(t, text.String(), "ttft p95 597 ms [594, ∞) undecided")
}
