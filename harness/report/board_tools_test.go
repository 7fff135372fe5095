package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
)

// TestBoardShowsToolFigures: the model-selection board reads the metric
// table, so a tools scenario shows its time to the first tool-call delta
// and its valid and expected-call rates, and an endpoint whose calls miss
// the implied tool_match_min is not recommended.
func TestBoardShowsToolFigures(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ss []sample.Sample
	for _, ep := range []struct {
		name  string
		wrong int // every wrong-th call has wrong arguments (0: none)
	}{{"exact", 0}, {"sloppy", 4}} {
		at := t0
		for i := range 20 {
			matched := ep.wrong == 0 || i%ep.wrong != 0
			s := sample.Sample{Scenario: "tools", Endpoint: ep.name, Model: "m-" + ep.name, Level: "concurrency=1", Run: ep.name, Seq: i,
				Start: at, TTFT: 30 * time.Millisecond, TTFA: 30 * time.Millisecond, TTFTool: 30 * time.Millisecond, ToolDone: 50 * time.Millisecond,
				Total: 50 * time.Millisecond, OutputTokens: 8, TokenSource: sample.TokensUsage, Chunks: 8, Finish: "tool_calls",
				ToolCalls: []sample.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
				Quality:   &sample.Quality{Case: "w", ToolChecked: true, ToolValid: true, ToolMatchChecked: true, ToolMatched: matched}}
			at = at.Add(s.Total)
			ss = append(ss, s)
		}
	}
	b := NewBoard(ss, Options{Objectives: func(string, string) objective.Objectives { return nil }})
	head, rows, _ := b.Table(true)
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %q in %v", name, head)
		return -1
	}
	require.Len(t, rows, 2)
	assert.Equal(t, "30.0 ms", rows[0][col("ttftool p95")])
	assert.Equal(t, "100%", rows[0][col("tool")])
	assert.Equal(t, "100%", rows[0][col("call")])
	assert.Equal(t, "75%", rows[1][col("call")], "one wrong call in four")
	assert.Equal(t, "exact", b.Recommended)
	var md strings.Builder
	b.Markdown(&md)
	assert.Contains(t, md.String(), "tool match 75% < 90%")
}
