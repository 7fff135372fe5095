package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// extraction: structured output validated against the case's JSON Schema.
var extraction = harness.Define(harness.Scenario{
	Name:       "extraction",
	Fixture:    "fixtures/extract.jsonl",
	System:     "Extract the invoice fields as JSON matching the schema. Output JSON only.",
	Structured: true,
})

func TestExtraction(t *testing.T)      { harness.Run(t, extraction) }
func BenchmarkExtraction(b *testing.B) { harness.Bench(b, extraction) }
