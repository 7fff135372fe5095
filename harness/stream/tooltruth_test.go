package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// truthCalls are the parallel calls the simulator answers every tool
// request of TestToolCallsEqualTruth with: two calls, so that a framing's
// indexes (or their absence) must tell them apart, with arguments of
// several tokens, so that fragments must be joined.
var truthCalls = []sim.ToolCall{
	{Name: "get_weather", Arguments: `{"city": "Buenos Aires", "unit": "celsius", "date": "2025-03-15"}`},
	{Name: "convert_units", Arguments: `{"value": 42.5, "from": "km", "to": "mi"}`},
}

// weatherTools are the tools each request offers.
var weatherTools = func() []openai.Tool {
	var out []openai.Tool
	for _, c := range truthCalls {
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: c.Name, Parameters: json.RawMessage(`{"type":"object"}`)}})
	}
	return out
}()

// TestToolCallsEqualTruth: in each vendor's tool-call framing, the calls
// the client assembles are the calls the simulator sent (index, id, name,
// arguments), ttftool and tool_done are the instants it sent the first
// tool-call delta and the finish chunk, within the bounds
// TestMeasuredEqualsTruth holds the first token and the end to, and the
// output tokens are the usage it sent, from as many token-bearing chunks
// as it sent (vLLM's empty repeat in its finish chunk is none).
func TestToolCallsEqualTruth(t *testing.T) {
	for _, framing := range sim.ToolFramings {
		t.Run("framing="+framing, func(t *testing.T) {
			t.Parallel()
			cfg := truthBase
			cfg.ToolFraming = framing
			cfg.Tools = func(*openai.ChatCompletionRequest) []sim.ToolCall { return truthCalls }
			againstTruth(t, func() ([]sample.Sample, []sim.Truth) { return runTools(t, cfg, 40) }, compareTools)
		})
	}
}

// runTools sends n requests that offer tools, one at a time.
func runTools(t testing.TB, cfg sim.Config, n int) ([]sample.Sample, []sim.Truth) {
	t.Helper()
	srv, url := sim.Start(t, cfg)
	c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m"})
	defer c.CloseIdle()
	src := load.SourceFunc(func(i int) load.Prompt {
		return load.Prompt{Request: stream.Request{Tools: weatherTools,
			Messages: []openai.ChatCompletionMessage{{Role: "user", Content: fmt.Sprintf("weather %d", i)}}}}
	})
	return load.NewRunner(load.Warmup(1)).Run(context.Background(), c, src, load.Closed(1), n), srv.Truth()
}

// compareTools checks every sample's calls and token counts against the
// truth of its request, and the errors of its readings of the first
// tool-call delta, the finish chunk and the end against the bounds.
func compareTools(t *recorder, samples []sample.Sample, truth []sim.Truth, widen slack) bool {
	byID := map[string]sim.Truth{}
	for _, tr := range truth {
		byID[tr.ID] = tr
	}
	var errs [3][]float64 // first tool-call delta, finish chunk, end
	for _, s := range samples {
		tr, ok := byID[s.ID]
		if !s.OK() || !ok {
			t.Errorf("sample %d: %q failed or has no truth (%s)", s.Seq, s.ID, s.Err)
			return false
		}
		if msg := sameCalls(s.ToolCalls, tr.ToolCalls); msg != "" {
			t.Errorf("%s: %s", s.ID, msg)
			return false
		}
		if s.OutputTokens != tr.OutputTokens || s.TokenSource != sample.TokensUsage || s.Chunks != tr.ToolChunks || s.Finish != "tool_calls" {
			t.Errorf("%s: %d output tokens (%s) in %d chunks, finish %q; truth %d tokens in %d chunks", s.ID, s.OutputTokens, s.TokenSource, s.Chunks, s.Finish, tr.OutputTokens, tr.ToolChunks)
			return false
		}
		errs[0] = append(errs[0], ms(s.Start.Add(s.TTFTool).Sub(tr.FirstTool)))
		errs[1] = append(errs[1], ms(s.Start.Add(s.ToolDone).Sub(tr.ToolDone)))
		errs[2] = append(errs[2], ms(s.Start.Add(s.Total).Sub(tr.Last)))
	}
	ok := true
	for i, name := range []string{"ttftool", "tool_done", "end"} {
		d := stats.Describe(errs[i])
		t.logf("%s error p50 %.3f p90 %.3f max %.3f ms", name, d.P50, d.P90, d.Max)
		if math.Abs(d.P50) > medianBound+widen.median {
			t.Errorf("%s: median error %.3f ms, beyond ±%.3f ms (n=%d)", name, d.P50, medianBound+widen.median, d.N)
			ok = false
		}
		if d.P90 > p90Bound+widen.p90 {
			t.Errorf("%s: p90 error %.3f ms > %.3f ms (n=%d)", name, d.P90, p90Bound+widen.p90, d.N)
			ok = false
		}
	}
	return ok
}

// sameCalls says how the assembled calls differ from those sent, "" when
// they do not: the k-th call has index k (the server's, or its position
// where the framing gives none), the id, name and arguments sent.
func sameCalls(got []sample.ToolCall, sent []sim.ToolCall) string {
	if len(got) != len(sent) {
		return fmt.Sprintf("%d calls assembled, %d sent: %+v", len(got), len(sent), got)
	}
	for k, c := range got {
		want := sample.ToolCall{Index: k, ID: sent[k].ID, Name: sent[k].Name, Arguments: sent[k].Arguments}
		if c != want {
			return fmt.Sprintf("call %d: assembled %+v, sent %+v", k, c, want)
		}
	}
	return ""
}
