package stream

import (
	"os"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
)

// apiDir holds recorded streams of the APIs beside chat, in vendorDir's
// format, each named by its API ("responses-…", "messages-…") and
// written from the API's documentation or from the source of a server
// that implements it (its "# source:" lines).
const apiDir = "testdata/apis"

// apiShapes has a row for each file of testdata/apis.
var apiShapes = map[string]vendorWant{
	"responses-text.sse": {finish: "stop", ttft: 3, ttfa: 3, tokens: 3, source: sample.TokensUsage, content: "Hi there!",
		cached: cached(0), id: "resp_67c9fdcecf488190bdd9a0409de3a1ec", model: "gpt-4.1-2025-04-14"},
	"responses-function-call.sse": {finish: "tool_calls", ttft: 1, ttfa: 1, ttftool: 1, toolDone: 6, tokens: 23, source: sample.TokensUsage,
		calls:  []sample.ToolCall{call(0, "call_2345abc", "get_weather", `{"location":"Paris, France"}`)},
		cached: cached(256), id: "resp_1234xyz", model: "gpt-4.1-2025-04-14"},
	"responses-reasoning.sse": {finish: "stop", ttft: 3, ttfa: 6, tokens: 150, source: sample.TokensUsage, content: "4",
		reasoning: 128, reasonSrc: sample.ReasoningUsage, cached: cached(0), id: "resp_r1", model: "o4-mini-2025-04-16"},
	"messages-text.sse": {finish: "stop", ttft: 3, ttfa: 3, tokens: 15, source: sample.TokensUsage, content: "Hello!",
		cached: cached(2048), id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", model: "claude-opus-4-1-20250805"},
	"messages-thinking-tool.sse": {finish: "tool_calls", ttft: 2, ttfa: 6, ttftool: 8, toolDone: 13, tokens: 89, source: sample.TokensUsage,
		content: "Let me check.", reasoning: 1, reasonSrc: sample.ReasoningChunks,
		calls: []sample.ToolCall{call(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", `{"location": "San Francisco, CA"}`)},
		id:    "msg_014p7gG3wDgGV9EUtLvnow3U", model: "claude-sonnet-4-5-20250929"},
	// Servers that implement the APIs, from their source.
	"responses-vllm-text.sse": {finish: "stop", ttft: 4, ttfa: 4, tokens: 9, source: sample.TokensUsage, content: "Hello! How can I help?",
		cached: cached(32), id: "resp_9c7e3f0b2a6d4e1f8a5b0c3d7e9f1a2b", model: "Qwen/Qwen3-8B"},
	"responses-vllm-incomplete.sse": {finish: "length", ttft: 4, ttfa: 4, tokens: 5, source: sample.TokensUsage, content: "The capital of France is",
		cached: cached(0), id: "resp_9c7e3f0b2a6d4e1f8a5b0c3d7e9f1a2b", model: "Qwen/Qwen3-8B"},
	"responses-vllm-reasoning-tool.sse": {finish: "tool_calls", ttft: 4, ttfa: 9, ttftool: 9, toolDone: 14, tokens: 41, source: sample.TokensUsage,
		reasoning: 14, reasonSrc: sample.ReasoningUsage,
		calls:  []sample.ToolCall{call(0, "call_0b8f2d6e4a1c4e9fb7d3a5c1e8f2b6d4", "get_weather", `{"location": "Paris, France"}`)},
		cached: cached(0), id: "resp_9c7e3f0b2a6d4e1f8a5b0c3d7e9f1a2b", model: "Qwen/Qwen3-8B"},
	"responses-azure-text.sse": {finish: "stop", ttft: 6, ttfa: 6, tokens: 72, source: sample.TokensUsage, content: "Olá!",
		reasoning: 64, reasonSrc: sample.ReasoningUsage, cached: cached(0), id: "resp_0b4726240aaacbdc0169039977006081968d5b3074ea5b42a1", model: "gpt-5-mini"},
	"responses-azure-function-call.sse": {finish: "tool_calls", ttft: 4, ttfa: 4, ttftool: 4, toolDone: 15, tokens: 22, source: sample.TokensUsage,
		calls:  []sample.ToolCall{call(0, "call_mamm0WNokaTJlgAO8uAxyWBM", "weather", `{"location":"Florence, Italy"}`)},
		cached: cached(0), id: "resp_0ad1ae6a186e7452016903997fa0d8819789788f2c97870a47", model: "gpt-5-mini"},
	"messages-vertex-text.sse": {finish: "stop", ttft: 3, ttfa: 3, tokens: 27, source: sample.TokensUsage,
		content: "Olá! Como vai você?\n\nThis is a greeting in Portuguese that means \"Hello! How are you?\"",
		cached:  cached(0), id: "msg_vrtx_011vbTX9zC2NZRQEamT4cSJf", model: "claude-3-7-sonnet-20250219"},
	"messages-litellm-text.sse": {finish: "stop", ttft: 2, ttfa: 2, tokens: 9, source: sample.TokensUsage, content: "Hello! How can I help?",
		cached: cached(1024), id: "msg_6f1d3c2a-8b4e-4a9f-b1c7-2e5d9a0f3b68", model: "gpt-4o-mini"},
}

// withAPI points a client at another API of its base URL.
func withAPI(a API) ClientOption {
	return func(c *Client) { c.ep.API = a; c.url = apiURL(c.ep) }
}

// TestAPIShapes replays each recorded stream of testdata/apis through its
// API's reader: the answer, the counts, the calls, the provenance and the
// block each instant was read in are what the recorded stream says.
func TestAPIShapes(t *testing.T) {
	entries, err := os.ReadDir(apiDir)
	if err != nil {
		t.Fatal(err)
	}
	for name := range apiShapes {
		if _, err := os.Stat(apiDir + "/" + name); err != nil {
			t.Errorf("%s: a row without its file", name)
		}
	}
	for _, e := range entries {
		name := e.Name()
		want, ok := apiShapes[name]
		if !ok {
			t.Errorf("%s: no row in apiShapes", name)
			continue
		}
		api, _, _ := strings.Cut(name, "-")
		t.Run(strings.TrimSuffix(name, ".sse"), func(t *testing.T) {
			t.Parallel()
			v := readVendorStream(t, "../apis/"+name)
			if len(v.sources) == 0 {
				t.Errorf("%s cites no source", name)
			}
			for try := 1; ; try++ {
				s, writes := replay(t, v, withAPI(API(api)))
				checkVendorFields(t, s, want)
				late := vendorTimings(s, writes, want)
				if len(late) == 0 {
					return
				}
				if try == 3 {
					t.Errorf("%s, on 3 tries; the last: %s", name, strings.Join(late, "; "))
					return
				}
			}
		})
	}
}
