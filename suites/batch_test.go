package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// batch: offline work at high concurrency; no latency target, only errors
// and throughput.
var batch = harness.Define(harness.Scenario{
	Name:    "batch",
	Fixture: "fixtures/classify.jsonl",
	System:  "Classify the text. Answer with the label only.",
})

func TestBatch(t *testing.T)      { harness.Run(t, batch) }
func BenchmarkBatch(b *testing.B) { harness.Bench(b, batch) }
