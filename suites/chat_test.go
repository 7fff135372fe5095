package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// chat: short interactive answers, where time to first token is what a user
// feels. Classification cases give it an answer to check.
var chat = harness.Define(harness.Scenario{
	Name:    "chat",
	Fixture: "fixtures/classify.jsonl",
	System:  "You are a helpful assistant. Answer with the label only.",
})

func TestChat(t *testing.T)      { harness.Run(t, chat) }
func BenchmarkChat(b *testing.B) { harness.Bench(b, chat) }
