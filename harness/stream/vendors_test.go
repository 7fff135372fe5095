package stream

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/sample"
)

// vendorWant is what the client must make of one recorded stream. The
// instants are blocks of the file (0 is the first event written): ttft is
// the block of the first token, ttfa of the first answer token, ttftool
// of the first tool-call token, toolDone of the call's completion (atEnd:
// the end of the stream).
type vendorWant struct {
	kind                   sample.ErrorKind
	finish                 string
	ttft, ttfa             int
	ttftool, toolDone      int
	tokens                 int
	source                 sample.TokenSource
	reasoning              int
	reasonSrc              sample.ReasoningSource
	content                string
	calls                  []sample.ToolCall
	cached                 *int
	id, model, fingerprint string
}

const (
	none  = -1 // no such instant
	atEnd = -2 // tool_done at the end of the stream
)

func cached(n int) *int { return &n }

func call(index int, id, name, args string) sample.ToolCall {
	return sample.ToolCall{Index: index, ID: id, Name: name, Arguments: args}
}

// vendorShapes has a row for each file of testdata/vendors (the test
// fails on a file without a row, or a row without a file).
var vendorShapes = map[string]vendorWant{
	"openai-content.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 8, source: sample.TokensUsage, content: "Hello! How can I help?",
		cached: cached(0), id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", model: "gpt-4o-2024-08-06", fingerprint: "fp_eb9dce56a8"},
	"openai-cached.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 10, source: sample.TokensUsage, content: "The invoice total is $1,240.",
		cached: cached(1920), id: "chatcmpl-B9MKx2Hq7nD0sC1lYyZ3vX8tQwEaR", model: "gpt-4o-mini-2024-07-18", fingerprint: "fp_06737a9306"},
	"openai-tool-call.sse": {finish: "tool_calls", ttft: 0, ttfa: 0, ttftool: 0, toolDone: 8, tokens: 8, source: sample.TokensUsage,
		calls:  []sample.ToolCall{call(0, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", `{"location":"Paris, France"}`)},
		cached: cached(0), id: "chatcmpl-B9MQ2lVfUmPkR7sJ0wZc1bD4eNnGh", model: "gpt-4o-2024-08-06", fingerprint: "fp_eb9dce56a8"},
	"openai-parallel-tools.sse": {finish: "tool_calls", ttft: 0, ttfa: 0, ttftool: 0, toolDone: 8, tokens: 8, source: sample.TokensUsage,
		calls: []sample.ToolCall{call(0, "call_62136354", "get_weather", `{"location": "Paris"}`),
			call(1, "call_62136355", "get_weather", `{"location": "Tokyo"}`)},
		cached: cached(0), id: "chatcmpl-B9MQ2lVfUmPkR7sJ0wZc1bD4eNnGh", model: "gpt-4o-2024-08-06", fingerprint: "fp_eb9dce56a8"},
	"openai-reasoning-hidden.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 198, source: sample.TokensUsage, reasoning: 192, reasonSrc: sample.ReasoningUsage,
		content: "There are 3 r's.", cached: cached(0), id: "chatcmpl-B9MRnX1oJbO4cS0Lr2aKqT5yUiWvZ", model: "o3-mini-2025-01-31", fingerprint: "fp_42bfad963b"},
	"openai-refusal.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 10, source: sample.TokensUsage, content: "",
		cached: cached(0), id: "chatcmpl-B9MTa0pQfS3xZc8YvLk2NjHdGe5Rw", model: "gpt-4o-2024-08-06", fingerprint: "fp_eb9dce56a8"},
	"openai-function-call.sse": {finish: "function_call", ttft: 0, ttfa: 0, ttftool: 0, toolDone: 12, tokens: 12, source: sample.TokensEstimated,
		calls: []sample.ToolCall{call(0, "", "get_current_weather", "{\n  \"location\": \"Boston, MA\"\n}")},
		id:    "chatcmpl-8XJ4n0sBx2wQrMfT6yKc3hLpVdZeA", model: "gpt-3.5-turbo-0613"},
	"azure-filter-chunks.sse": {finish: "stop", ttft: 2, ttfa: 2, tokens: 8, source: sample.TokensUsage, content: "Paris is the capital of France.",
		cached: cached(0), id: "chatcmpl-A0yXv8hHBfzwJnT4Q1mPa2sKcLrDe", model: "gpt-4o-2024-11-20", fingerprint: "fp_b705f0c291"},
	"azure-content-filter.sse": {kind: sample.KindContentFilter, ttft: 2, ttfa: 2, tokens: 4, source: sample.TokensEstimated, content: "Here is how to",
		id: "chatcmpl-A0yXv8hHBfzwJnT4Q1mPa2sKcLrDe", model: "gpt-4o-2024-11-20", fingerprint: "fp_b705f0c291"},
	"vllm-content.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 10, source: sample.TokensUsage, content: "The sky is blue because of Rayleigh scattering.",
		id: "chatcmpl-5b3c1d7e9f2a4b6c8d0e1f3a5b7c9d1e", model: "Qwen/Qwen2.5-7B-Instruct"},
	"vllm-cached.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 8, source: sample.TokensUsage, content: "Your order #4412 shipped today.",
		cached: cached(1280), id: "chatcmpl-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d", model: "Qwen/Qwen2.5-7B-Instruct"},
	"vllm-reasoning.sse": {finish: "stop", ttft: 1, ttfa: 7, tokens: 12, source: sample.TokensUsage, reasoning: 6, reasonSrc: sample.ReasoningChunks,
		content: "9.8 is larger.", id: "chatcmpl-7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b", model: "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"},
	"vllm-tool-calls.sse": {finish: "tool_calls", ttft: 1, ttfa: 1, ttftool: 1, toolDone: 11, tokens: 10, source: sample.TokensUsage,
		calls: []sample.ToolCall{call(0, "chatcmpl-tool-9d3c0bb1c6f44fd8b8d9e0e3f1a2b3c4", "get_weather", `{"city": "San Francisco", "unit": "celsius"}`)},
		id:    "chatcmpl-3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c", model: "Qwen/Qwen2.5-7B-Instruct"},
	"sglang-cached.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 11, source: sample.TokensUsage, content: "Use a hash map for O(1) lookups.",
		cached: cached(384), id: "b7f1e2c3d4a5968778695a4b3c2d1e0f", model: "meta-llama/Llama-3.1-8B-Instruct"},
	"sglang-tool-calls.sse": {finish: "tool_calls", ttft: 1, ttfa: 1, ttftool: 1, toolDone: 9, tokens: 9, source: sample.TokensUsage,
		calls: []sample.ToolCall{call(0, "call_6f1c9b2a4e8d47a3b5c0d9e8", "search_flights", `{"origin": "SFO", "destination": "NRT", "date": "2025-04-12"}`)},
		id:    "c8a2f3e4d5b6a7988796a5b4c3d2e1f0", model: "meta-llama/Llama-3.1-8B-Instruct"},
	"tgi-content.sse": {finish: "stop", ttft: 0, ttfa: 0, tokens: 10, source: sample.TokensUsage, content: "Deep learning is a subset of machine learning.",
		model: "meta-llama/Llama-3.1-8B-Instruct", fingerprint: "3.1.2-dev0-native"},
	"tgi-tool-calls.sse": {finish: "", ttft: 0, ttfa: 0, ttftool: 0, toolDone: atEnd, tokens: 17, source: sample.TokensEstimated,
		calls: []sample.ToolCall{call(0, "", "get_current_weather", `{ "location": "San Francisco, CA", "format": "celsius"}`)},
		model: "meta-llama/Llama-3.1-8B-Instruct", fingerprint: "3.1.2-dev0-native"},
	"tgi-tool-calls-object.sse": {finish: "stop", ttft: 0, ttfa: 0, ttftool: 0, toolDone: atEnd, tokens: 26, source: sample.TokensEstimated,
		calls: []sample.ToolCall{call(0, "", "", `{"function": {"_name": "get_current_weather", "location": "Paris", "format": "celsius"}}`)},
		model: "/models/Qwen2.5-7B-Instruct-AWQ", fingerprint: "2.4.1-sha-d2ed52f"},
	"llamacpp-timings.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 7, source: sample.TokensEstimated, content: "Bonjour ! Comment allez-vous ?",
		cached: cached(96), id: "chatcmpl-Yq3nQ8mF1xW0zRtK5uH2cJ7aL9bD4eG6", model: "gpt-3.5-turbo", fingerprint: "b5601-7b1b3a4c"},
	"llamacpp-tool-calls.sse": {finish: "tool_calls", ttft: 1, ttfa: 1, ttftool: 1, toolDone: 9, tokens: 9, source: sample.TokensUsage,
		calls:  []sample.ToolCall{call(0, "Ks0EeO9HkQ0ObbXf3zQyJOpbfcAc6Qxq", "get_current_time", `{"timezone":"Europe/Berlin"}`)},
		cached: cached(288), id: "chatcmpl-Hn6pW2sV8xB1cQ4rT0yZ3kM7jL5fD9aE", model: "gpt-3.5-turbo", fingerprint: "b5601-7b1b3a4c"},
	"llamacpp-reasoning.sse": {finish: "stop", ttft: 1, ttfa: 6, tokens: 10, source: sample.TokensUsage, reasoning: 5, reasonSrc: sample.ReasoningChunks,
		content: "Hi there!", cached: cached(0), id: "chatcmpl-Rd2kV7nB4mX9qT1wZ6sJ3hL8fC0gP5aY", model: "Qwen3-8B-Q4_K_M.gguf", fingerprint: "b5601-7b1b3a4c"},
	"ollama-content.sse": {finish: "stop", ttft: 0, ttfa: 0, tokens: 8, source: sample.TokensUsage, content: "The capital of Japan is Tokyo.",
		id: "chatcmpl-712", model: "llama3.2:3b", fingerprint: "fp_ollama"},
	"ollama-tool-call.sse": {finish: "tool_calls", ttft: 0, ttfa: 0, ttftool: 0, toolDone: 1, tokens: 24, source: sample.TokensUsage,
		calls: []sample.ToolCall{call(0, "call_k1x9vq2e", "get_current_weather", `{"format":"celsius","location":"Toronto"}`)},
		id:    "chatcmpl-712", model: "qwen3:8b", fingerprint: "fp_ollama"},
	"ollama-tool-call-noindex.sse": {finish: "tool_calls", ttft: 0, ttfa: 0, ttftool: 0, toolDone: 2, tokens: 2, source: sample.TokensEstimated,
		calls: []sample.ToolCall{call(0, "call_2c4yf8kp", "get_current_weather", `{"location":"Boston, MA"}`),
			call(1, "call_9mq1zs3d", "get_current_weather", `{"location":"Paris"}`)},
		id: "chatcmpl-305", model: "llama3.1:8b", fingerprint: "fp_ollama"},
	"ollama-parallel-tools.sse": {finish: "tool_calls", ttft: 0, ttfa: 0, ttftool: 0, toolDone: 2, tokens: 2, source: sample.TokensEstimated,
		calls: []sample.ToolCall{call(0, "call_a8f3k2m1", "add", `{"a":11,"b":49}`), call(0, "call_q7w2e9r4", "multiply", `{"a":3,"b":12}`)},
		id:    "chatcmpl-498", model: "qwen3:8b", fingerprint: "fp_ollama"},
	"ollama-reasoning.sse": {finish: "stop", ttft: 0, ttfa: 5, tokens: 10, source: sample.TokensEstimated, reasoning: 5, reasonSrc: sample.ReasoningChunks,
		content: "2 + 2 = 4", id: "chatcmpl-712", model: "deepseek-r1:8b", fingerprint: "fp_ollama"},
	"deepseek-reasoner.sse": {finish: "stop", ttft: 1, ttfa: 12, tokens: 96, source: sample.TokensUsage, reasoning: 90, reasonSrc: sample.ReasoningUsage,
		content: "9.8 is greater.", cached: cached(0), id: "0f3a8c5e-6b2d-4e71-9a0c-5d4e3f2a1b0c", model: "deepseek-reasoner", fingerprint: "fp_5417b77867_prod0425fp8"},
	"deepseek-chat-cache.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 5, source: sample.TokensUsage, content: "Bonjour le monde.",
		cached: cached(1472), id: "5c2e9a7b-1d3f-4a6e-8b0c-9f8e7d6c5b4a", model: "deepseek-chat", fingerprint: "fp_5417b77867_prod0425fp8"},
	"groq-xgroq-usage.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 7, source: sample.TokensUsage, content: "Fast inference needs low latency.",
		id: "chatcmpl-a1b6c3e2-0d9f-4e7a-8b5c-3f2e1d0c9b8a", model: "llama-3.3-70b-versatile", fingerprint: "fp_c0cfa69934"},
	"groq-tool-call.sse": {finish: "tool_calls", ttft: 1, ttfa: 1, ttftool: 1, toolDone: 2, tokens: 22, source: sample.TokensUsage,
		calls: []sample.ToolCall{call(0, "call_3gkqq4sw", "get_stock_price", `{"symbol":"NVDA"}`)},
		id:    "chatcmpl-7f3e2d1c-0b9a-4e8d-9c7b-6a5f4e3d2c1b", model: "qwen/qwen3-32b", fingerprint: "fp_c0cfa69934"},
	"groq-xgroq-error.sse": {kind: sample.KindMidstream, ttft: 1, ttfa: 1, content: "Step one:",
		id: "chatcmpl-2b4d6f8a-1c3e-4a5b-9d7f-0e2c4a6b8d0f", model: "llama-3.3-70b-versatile", fingerprint: "fp_c0cfa69934"},
	"openrouter-comments.sse": {finish: "stop", ttft: 2, ttfa: 2, tokens: 6, source: sample.TokensUsage, content: "Sure, here it is.",
		cached: cached(0), id: "gen-1741578000-Xq7c2VfN0kP3sLm9TzR1", model: "openai/gpt-4o-mini", fingerprint: "fp_06737a9306"},
	"openrouter-reasoning.sse": {finish: "stop", ttft: 0, ttfa: 6, tokens: 9, source: sample.TokensUsage, reasoning: 7, reasonSrc: sample.ReasoningUsage,
		content: "Hello!", cached: cached(0), id: "gen-1741578100-Rb4nW8yQ2hJ6dK0xPcV5", model: "deepseek/deepseek-r1"},
	"openrouter-midstream-error.sse": {kind: sample.KindMidstream, ttft: 0, ttfa: 0, content: "Let me think",
		id: "gen-1741578200-Tz9cM3vB7nQ1wE5rYhK8", model: "anthropic/claude-3.5-haiku"},
	"mistral-content.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 8, source: sample.TokensUsage, content: "Le meilleur fromage est le comté.",
		id: "cf79f7daaee244b1a0ae5c7b1444424a", model: "mistral-small-latest"},
	"mistral-tool-call.sse": {finish: "tool_calls", ttft: 1, ttfa: 1, ttftool: 1, toolDone: 1, tokens: 23, source: sample.TokensUsage,
		calls: []sample.ToolCall{call(0, "D681PevKs", "retrieve_payment_status", `{"transaction_id": "T1001"}`)},
		id:    "a3c4f1e2b5d6478899aabbccddeeff00", model: "mistral-small-latest"},
	"magistral-thinking.sse": {finish: "stop", ttft: 1, ttfa: 8, tokens: 12, source: sample.TokensUsage, reasoning: 7, reasonSrc: sample.ReasoningChunks,
		content: "12 / 2 = 6", id: "426a1c8c62704d959621a94c1ff0cffb", model: "magistral-medium-latest"},
	"together-content.sse": {finish: "stop", ttft: 0, ttfa: 0, tokens: 7, source: sample.TokensUsage, content: "Rust has no garbage collector.",
		id: "9283a5d8ab3c4e4f-SJC", model: "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
	"fireworks-cached.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 7, source: sample.TokensUsage, content: "Fireworks serves open models.",
		cached: cached(512), id: "5c7d2a1e-8f3b-4c6d-9e0a-1b2c3d4e5f60", model: "accounts/fireworks/models/llama-v3p1-70b-instruct"},
	"gemini-content.sse": {finish: "stop", ttft: 0, ttfa: 0, tokens: 6, source: sample.TokensUsage, content: "AI learns patterns from data.",
		id: "uFTVaJn0H-XWnvgPqPbV4Q0", model: "gemini-2.0-flash"},
	"gemini-hidden-thinking.sse": {finish: "stop", ttft: 0, ttfa: 0, tokens: 20, source: sample.TokensUsage, reasoning: 8, reasonSrc: sample.ReasoningInferred,
		content: "The answer is 42.", id: "lUjVaKqXNvGp0dQxW3mZ8Rk", model: "gemini-2.5-flash"},
	"gemini-tool-call.sse": {finish: "tool_calls", ttft: 0, ttfa: 0, ttftool: 0, toolDone: 0, tokens: 18, source: sample.TokensUsage,
		calls: []sample.ToolCall{call(0, "function-call-4619274618453219861", "get_weather", `{"location":"Chicago, IL"}`)},
		id:    "q0nWaI3cM7rT5yB9xKdE1Fs", model: "gemini-2.5-flash"},
	"gemini-parallel-tools.sse": {finish: "tool_calls", ttft: 0, ttfa: 0, ttftool: 0, toolDone: 1, tokens: 30, source: sample.TokensUsage,
		calls: []sample.ToolCall{call(0, "", "get_weather", `{"location":"taipei"}`), call(1, "", "get_weather", `{"location":"tokyo"}`)},
		id:    "w8pXaN2bL4sQ6uC0vJgH3Tm", model: "gemini-2.5-flash"},
	"anthropic-content.sse": {finish: "stop", ttft: 1, ttfa: 1, tokens: 8, source: sample.TokensUsage, content: "Hello! I'm Claude.",
		id: "msg_01XFDUDYJgAACzvnptvVoYEL", model: "claude-sonnet-4-20250514"},
	"anthropic-tool-call.sse": {finish: "tool_calls", ttft: 0, ttfa: 0, ttftool: 1, toolDone: 5, tokens: 58, source: sample.TokensUsage,
		content: "I'll check the weather.",
		calls:   []sample.ToolCall{call(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", `{"location": "San Francisco, CA"}`)},
		id:      "msg_01XFDUDYJgAACzvnptvVoYEL", model: "claude-sonnet-4-20250514"},
}

// TestVendorShapes replays each recorded stream of testdata/vendors
// through the client, its events replayGap apart, and checks what the
// sample says against what the file holds: the kind and finish, the
// answer, the tool calls, the token counts and their source, the
// reasoning and where its count came from, the cached tokens, the
// response's id, model and fingerprint, each exactly; and ttft, ttfa,
// ttftool and tool_done each read in the gap after the block they belong
// to. A reading can fall outside it on a machine too busy to read a
// chunk within replayGap of its write: the timings alone are measured
// again, up to three times.
func TestVendorShapes(t *testing.T) {
	entries, err := os.ReadDir(vendorDir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	sort.Strings(files)
	for name := range vendorShapes {
		if _, err := os.Stat(vendorDir + "/" + name); err != nil {
			t.Errorf("%s: a row without its file", name)
		}
	}
	if len(files) < 30 {
		t.Errorf("%d vendor shapes, want at least 30", len(files))
	}
	for _, name := range files {
		want, ok := vendorShapes[name]
		if !ok {
			t.Errorf("%s: no row in vendorShapes", name)
			continue
		}
		t.Run(strings.TrimSuffix(name, ".sse"), func(t *testing.T) {
			t.Parallel()
			v := readVendorStream(t, name)
			if len(v.sources) == 0 {
				t.Errorf("%s cites no source (a \"# source: \" line)", name)
			}
			for try := 1; ; try++ {
				s, writes := replay(t, v)
				checkVendorFields(t, s, want)
				late := vendorTimings(s, writes, want)
				if len(late) == 0 {
					return
				}
				if try == 3 {
					t.Errorf("%s, on 3 tries; the last: %s", name, strings.Join(late, "; "))
					return
				}
				t.Logf("try %d: %s", try, strings.Join(late, "; "))
			}
		})
	}
}

// checkVendorFields checks everything but the instants.
func checkVendorFields(t *testing.T, s sample.Sample, w vendorWant) {
	t.Helper()
	if !assert.Equal(t, w.kind, s.ErrKind, s.Err) {
		return
	}
	assert.Equal(t, w.content, s.Content, "answer")
	assert.Equal(t, w.id, s.ID, "id")
	assert.Equal(t, w.model, s.ResponseModel, "response model")
	assert.Equal(t, w.fingerprint, s.SystemFingerprint, "system fingerprint")
	if w.kind != sample.KindNone && w.kind != sample.KindContentFilter {
		return
	}
	finish := w.finish
	if w.kind != sample.KindNone {
		finish = string(w.kind)
	}
	assert.Equal(t, finish, s.Finish, "finish")
	assert.Equal(t, w.tokens, s.OutputTokens, "output tokens")
	assert.Equal(t, w.source, s.TokenSource, "token source")
	assert.Equal(t, w.reasoning, s.ReasoningTokens, "reasoning tokens")
	assert.Equal(t, w.reasonSrc, s.ReasoningSource, "reasoning source")
	assert.Equal(t, w.cached, s.CachedTokens, "cached tokens")
	assert.Equal(t, w.calls, s.ToolCalls, "tool calls")
	assert.False(t, s.ToolCallsCut)
}

// vendorTimings says which instants were not read in their block.
func vendorTimings(s sample.Sample, writes []time.Time, w vendorWant) []string {
	var late []string
	check := func(what string, d time.Duration, block int) {
		if !inBlock(writes, s.Start, d, block) {
			late = append(late, fmt.Sprintf("%s %v not in block %d", what, d, block))
		}
	}
	check("ttft", s.TTFT, w.ttft)
	check("ttfa", s.TTFA, w.ttfa)
	switch {
	case w.calls == nil && (s.TTFTool != 0 || s.ToolDone != 0):
		late = append(late, fmt.Sprintf("ttftool %v, tool_done %v without tool calls", s.TTFTool, s.ToolDone))
	case w.calls == nil || w.kind != sample.KindNone:
	case w.toolDone == atEnd:
		check("ttftool", s.TTFTool, w.ttftool)
		if s.ToolDone != s.Total {
			late = append(late, fmt.Sprintf("tool_done %v, want the end of the stream %v", s.ToolDone, s.Total))
		}
	default:
		check("ttftool", s.TTFTool, w.ttftool)
		check("tool_done", s.ToolDone, w.toolDone)
	}
	return late
}
