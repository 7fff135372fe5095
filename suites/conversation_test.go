package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// conversation: chats of three to six turns, each turn sent with the
// history so far and a user's think time before it, so that TTFT is read
// turn by turn as the history grows. The last turn asks for something the
// earlier ones settled, and is judged.
var conversation = harness.Define(harness.Scenario{
	Name:    "conversation",
	Fixture: "fixtures/conversations.jsonl",
	System:  "You are a helpful assistant in a chat. Keep your answers short.",
})

func TestConversation(t *testing.T)      { harness.Run(t, conversation) }
func BenchmarkConversation(b *testing.B) { harness.Bench(b, conversation) }
