package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// golden: deterministic extraction (temperature 0, seed 0) compared with
// golden/extraction/<endpoint>/<case>.golden. A new endpoint records its
// goldens once with: go test ./suites/ -run TestGolden -update
var goldenExtraction = harness.Define(harness.Scenario{
	Name:        "golden",
	Fixture:     "fixtures/extract.jsonl",
	System:      extraction.System,
	Structured:  true,
	Temperature: new(float32),
	Seed:        new(int),
	Golden:      "golden/extraction",
})

func TestGolden(t *testing.T) { harness.Run(t, goldenExtraction) }
