package ollama_test

import (
	"fmt"
	"time"

	"github.com/llmsla/llmsla/harness/ollama"
)

// A warm request as the tiny model answers it: most of the TTFT is the
// scheduler's load_duration, and what the server did not time is
// network+queue.
func ExampleBreakdown() {
	ms := time.Millisecond
	r := ollama.ChatResult{
		TTFT: 14 * ms, Total: 164 * ms, Chunks: 16,
		Server: ollama.Timings{Load: 9 * ms, PromptEval: 1 * ms, PromptN: 7, Eval: 160 * ms, EvalN: 16},
	}
	s := ollama.Breakdown(r)
	fmt.Printf("ttft %v = load %v + prefill %v + network+queue %v\n", s.TTFT, s.Load, s.Prefill, s.NetworkQueue)
	fmt.Printf("decode: client %.0f chunks/s, server %.0f tok/s, count mismatch %v\n",
		s.ClientDecodeRate, s.ServerDecodeRate, s.CountMismatch)
	// Output:
	// ttft 14ms = load 9ms + prefill 1ms + network+queue 4ms
	// decode: client 100 chunks/s, server 100 tok/s, count mismatch false
}
