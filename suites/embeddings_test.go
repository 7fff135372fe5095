package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// embeddings: an embedding service's latency and throughput, on endpoints
// of api: embeddings only; each case embeds an anchor, a paraphrase and
// an unrelated text together, and is right when the paraphrase ranks
// above the unrelated text (embedding_rank).
var embeddings = harness.Define(harness.Scenario{
	Name:       "embeddings",
	Fixture:    "fixtures/embeddings.jsonl",
	Embeddings: true,
})

func TestEmbeddings(t *testing.T)      { harness.Run(t, embeddings) }
func BenchmarkEmbeddings(b *testing.B) { harness.Bench(b, embeddings) }
