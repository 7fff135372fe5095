package harness_test

import (
	"fmt"

	"github.com/llmsla/llmsla/harness"
)

// A scenario is a few lines in a suite: what to ask and how to judge it.
// The endpoints, load levels and objectives come from sla.yaml (or the
// simulator); Define lets the SLA file be checked against it.
func ExampleDefine() {
	chat := harness.Define(harness.Scenario{
		Name:    "chat",
		Fixture: "fixtures/classify.jsonl",
		System:  "Answer with the label only.",
	})
	// In a _test.go file:
	//	func TestChat(t *testing.T)      { harness.Run(t, chat) }
	//	func BenchmarkChat(b *testing.B) { harness.Bench(b, chat) }
	fmt.Println(chat.Name, harness.Defined())
	// Output: chat [chat]
}
