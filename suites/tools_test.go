package suites

import (
	"testing"

	"github.com/llmsla/llmsla/harness"
)

// tools: function calling. Each case offers a few tools (weather, unit
// conversion, web search, calendar) and expects one call: the answer is
// judged by its call — an offered tool, arguments valid against its
// schema, the arguments the case expects — and timed to the first
// tool-call delta (ttftool) and to the complete call (tool_done).
var tools = harness.Define(harness.Scenario{
	Name:    "tools",
	Fixture: "fixtures/tools.jsonl",
	System:  "You are an assistant with tools. Answer the request by calling the one tool that serves it, with the arguments the request gives.",
})

func TestTools(t *testing.T)      { harness.Run(t, tools) }
func BenchmarkTools(b *testing.B) { harness.Bench(b, tools) }
