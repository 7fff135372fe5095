package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// agent: agent loops. Each case offers tools and gives each tool's result:
// the model calls a tool, is sent its result, and calls again until it
// answers (at most the case's max_steps), so that a loop's latency is
// several model calls and their tool results — agent_total, from the
// first request's start to the final answer's end — and its answer is
// judged at the end, each step's call on the way.
var agent = harness.Define(harness.Scenario{
	Name:    "agent",
	Fixture: "fixtures/agent.jsonl",
	System:  "You are an assistant with tools. Call the tools you need, one at a time, then answer in one sentence.",
})

func TestAgent(t *testing.T)      { harness.Run(t, agent) }
func BenchmarkAgent(b *testing.B) { harness.Bench(b, agent) }
