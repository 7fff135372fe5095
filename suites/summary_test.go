package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// summary: long input, where prefill dominates the time to first token.
var summary = harness.Define(harness.Scenario{
	Name:    "summary",
	Fixture: "fixtures/summarize.jsonl",
	System:  "Summarise the text in at most three sentences.",
	// Judged by a judge model too, where the SLA file names one (judge:
	// {endpoint: …}): faithful, the key points, nothing invented.
	Rubric: "fixtures/rubrics/summary.yaml",
})

func TestSummary(t *testing.T)      { harness.Run(t, summary) }
func BenchmarkSummary(b *testing.B) { harness.Bench(b, summary) }
