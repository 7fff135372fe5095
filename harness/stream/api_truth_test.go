package stream_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// streamedAPIs are the APIs read by their own event readers, beside chat.
var streamedAPIs = []stream.API{stream.APIResponses, stream.APIMessages}

// apiFramings are the stream shapes each API is held to the truth in:
// text, reasoning before it (Responses' reasoning summary, Messages'
// thinking block), keep-alive comments between events, and a prefix
// cache whose cached tokens each API's usage must carry.
var apiFramings = map[string]func(*sim.Config){
	"plain":     func(*sim.Config) {},
	"reasoning": func(c *sim.Config) { c.ReasoningTokens = 4 },
	"keepalive": func(c *sim.Config) { c.KeepAlive = c.TPOT / 2 },
	"crlf":      func(c *sim.Config) { c.CRLF = true },
	"cache":     func(c *sim.Config) { c.CacheBlocks = 1 << 10 },
}

// TestAPIsMeasuredEqualTruth: through the Responses and Messages APIs,
// every request's first token, first answer token and end, its tpot, its
// output tokens and its cached tokens are what the simulator sent, within
// TestMeasuredEqualsTruth's bounds, at concurrency 1 and 50.
func TestAPIsMeasuredEqualTruth(t *testing.T) {
	for _, api := range streamedAPIs {
		t.Run("api="+string(api), func(t *testing.T) {
			t.Run("concurrency=1", func(t *testing.T) {
				for name, frame := range apiFramings {
					t.Run("framing="+name, func(t *testing.T) {
						t.Parallel()
						cfg := truthBase
						frame(&cfg)
						apiAgainstTruth(t, api, cfg, 1, 40)
					})
				}
			})
			t.Run("concurrency=50", func(t *testing.T) {
				if testing.Short() {
					t.Skip("-short")
				}
				for _, name := range []string{"plain", "reasoning", "cache"} {
					t.Run("framing="+name, func(t *testing.T) {
						cfg := truthAt100(truthBase)
						apiFramings[name](&cfg)
						apiAgainstTruth(t, api, cfg, 50, 150)
					})
				}
			})
		})
	}
}

func apiAgainstTruth(t testing.TB, api stream.API, cfg sim.Config, conc, n int) bool {
	t.Helper()
	return againstTruth(t, func() ([]sample.Sample, []sim.Truth) { return runAPI(t, api, cfg, conc, n, repeatedPrompt) },
		func(rec *recorder, samples []sample.Sample, truth []sim.Truth, widen slack) bool {
			return sameCounts(rec, samples, truth) && compareWithTruth(rec, samples, truth, cfg.ReasoningTokens > 0, widen)
		})
}

// repeatedPrompt shares a long system prompt, so that a prefix cache
// serves its blocks from the second request on.
func repeatedPrompt(i int) load.Prompt {
	return load.Prompt{Request: stream.Request{Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: strings.Repeat("you answer briefly and well ", 12)},
		{Role: "user", Content: fmt.Sprintf("hello %d", i)}}}}
}

func runAPI(t testing.TB, api stream.API, cfg sim.Config, conc, n int, prompt func(int) load.Prompt) ([]sample.Sample, []sim.Truth) {
	t.Helper()
	srv, url := sim.Start(t, cfg)
	c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m", API: api, APIKey: "sk-test-secret-key"})
	defer c.CloseIdle()
	samples := load.NewRunner(load.Warmup(conc)).Run(context.Background(), c, load.SourceFunc(prompt), load.Closed(conc), n)
	return samples, srv.Truth()
}

// sameCounts checks each sample's prompt, cached, output and reasoning
// tokens, finish and answer against its request's truth.
func sameCounts(t *recorder, samples []sample.Sample, truth []sim.Truth) bool {
	byID := map[string]sim.Truth{}
	for _, tr := range truth {
		byID[tr.ID] = tr
	}
	for _, s := range samples {
		tr, ok := byID[s.ID]
		if !s.OK() || !ok {
			t.Errorf("sample %d: %q failed or has no truth (%s)", s.Seq, s.ID, s.Err)
			return false
		}
		var cached *int
		if tr.Cache {
			cached = &tr.CachedTokens
		}
		switch {
		case s.PromptTokens != tr.PromptTokens:
			t.Errorf("%s: %d prompt tokens, truth %d", s.ID, s.PromptTokens, tr.PromptTokens)
		case (s.CachedTokens == nil) != (cached == nil) || (cached != nil && *s.CachedTokens != *cached):
			t.Errorf("%s: cached tokens %v, truth %v (cache %v)", s.ID, deref(s.CachedTokens), tr.CachedTokens, tr.Cache)
		case s.ReasoningTokens != tr.ReasoningTokens:
			t.Errorf("%s: %d reasoning tokens, truth %d", s.ID, s.ReasoningTokens, tr.ReasoningTokens)
		case s.Finish != tr.Finish:
			t.Errorf("%s: finish %q, truth %q", s.ID, s.Finish, tr.Finish)
		case s.Content != tr.Answer:
			t.Errorf("%s: answer %q, truth %q", s.ID, s.Content, tr.Answer)
		default:
			continue
		}
		return false
	}
	return true
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestAPIToolCallsEqualTruth: function_call items (Responses) and
// tool_use blocks (Messages) are assembled into the calls the simulator
// sent, ttftool and tool_done at the instants it sent the first call's
// name and the finish, at concurrency 1 and 50 (truthAt100's decode
// rate, as TestAPIsMeasuredEqualTruth).
func TestAPIToolCallsEqualTruth(t *testing.T) {
	for _, api := range streamedAPIs {
		t.Run("api="+string(api), func(t *testing.T) {
			for _, conc := range []int{1, 50} {
				t.Run(fmt.Sprintf("concurrency=%d", conc), func(t *testing.T) {
					cfg, n := truthBase, 40
					if conc > 1 {
						if testing.Short() {
							t.Skip("-short")
						}
						cfg, n = truthAt100(truthBase), 150
					}
					cfg.Tools = func(*openai.ChatCompletionRequest) []sim.ToolCall { return truthCalls }
					againstTruth(t, func() ([]sample.Sample, []sim.Truth) {
						return runAPI(t, api, cfg, conc, n, func(i int) load.Prompt {
							return load.Prompt{Request: stream.Request{Tools: weatherTools,
								Messages: []openai.ChatCompletionMessage{{Role: "user", Content: fmt.Sprintf("weather %d", i)}}}}
						})
					}, compareTools)
				})
			}
		})
	}
}
