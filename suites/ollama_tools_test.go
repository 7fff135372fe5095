package suites

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/ollama/ollamatest"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestOllamaToolCalls sends the tools scenario's cases to the real Ollama
// (its OpenAI-compatible API, the tiny model under a chat template that
// offers tools) and checks the plumbing: the tools go out, the call comes
// back in Ollama's whole-call framing and is assembled, timed (ttftool ≤
// tool_done ≤ total), counted from the server's usage and judged. The
// random-weight model writes a call only when its output is constrained to
// one (response_format json_schema: the first tool's name and its
// parameters), and its arguments are gibberish of the right types: the
// calls are not expected to match, and tool_valid is logged, not held.
func TestOllamaToolCalls(t *testing.T) {
	srv := ollamatest.Shared(t)
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := quality.LoadCases(filepath.Join(root, tools.Fixture))
	if err != nil {
		t.Fatal(err)
	}
	sc := deterministic(tools)
	fix, err := load.NewFixture(cases, load.FixtureOptions{System: sc.System, Temperature: sc.Temperature, Seed: sc.Seed})
	if err != nil {
		t.Fatal(err)
	}
	c := stream.NewClient(stream.Endpoint{Name: "ollama", BaseURL: srv.BaseURL(), Model: srv.ToolModelName(), Kind: "ollama", Timeouts: stream.DefaultTimeouts})
	defer c.CloseIdle()
	constrained := load.DoerFunc(func(ctx context.Context, req stream.Request) sample.Sample {
		req.ResponseFormat = callShape(t, req.Tools[0])
		return c.Do(ctx, req)
	})
	const n = 6
	samples := load.NewRunner(load.Warmup(1)).Run(context.Background(), constrained, load.MaxTokens(fix, 96), load.Closed(1), n)
	var valid, judged int
	for _, s := range samples {
		if s.Warmup {
			continue
		}
		judged++
		if !s.OK() {
			t.Fatalf("case %s: %s: %s", s.Case, s.ErrKind, s.Err)
		}
		if err := s.Check(); err != nil {
			t.Errorf("case %s: the sample is not one a request can measure: %v", s.Case, err)
		}
		if len(s.ToolCalls) != 1 || s.Finish != "tool_calls" {
			t.Fatalf("case %s: %d calls, finish %q, content %q: want the one call the output was constrained to", s.Case, len(s.ToolCalls), s.Finish, s.Content)
		}
		call := s.ToolCalls[0]
		if call.ID == "" || !json.Valid([]byte(call.Arguments)) {
			t.Errorf("case %s: call %+v: want an id and JSON arguments, as Ollama sends them", s.Case, call)
		}
		if !(s.TTFTool > 0 && s.TTFTool <= s.ToolDone && s.ToolDone <= s.Total) {
			t.Errorf("case %s: ttftool %v, tool_done %v, total %v: want 0 < ttftool ≤ tool_done ≤ total", s.Case, s.TTFTool, s.ToolDone, s.Total)
		}
		if s.TokenSource != sample.TokensUsage || s.OutputTokens <= 0 {
			t.Errorf("case %s: %d output tokens from %q, want the server's usage", s.Case, s.OutputTokens, s.TokenSource)
		}
		q := s.Quality
		if q == nil || !q.ToolChecked || !q.ToolMatchChecked {
			t.Fatalf("case %s: quality %+v: the call was not judged", s.Case, q)
		}
		if q.ToolValid {
			valid++
		}
		t.Logf("case %s: ttftool %v, tool_done %v, %d tokens: %s(%s) valid=%v %s", s.Case, s.TTFTool, s.ToolDone, s.OutputTokens, call.Name, call.Arguments, q.ToolValid, q.ToolError)
	}
	if judged != n {
		t.Errorf("%d measured requests, want %d", judged, n)
	}
	t.Logf("tool valid %d of %d (gibberish arguments of the right types; formats and patterns are the grammar's to keep)", valid, judged)
}

// callShape is the response format that makes the tiny model write a call
// of tool: {"name": <its name>, "arguments": <its parameters>}.
func callShape(t *testing.T, tool openai.Tool) *openai.ChatCompletionResponseFormat {
	t.Helper()
	raw, ok := tool.Function.Parameters.(json.RawMessage)
	var params map[string]any
	if !ok || json.Unmarshal(raw, &params) != nil {
		t.Fatalf("tool %s: parameters %T, want the fixture's JSON", tool.Function.Name, tool.Function.Parameters)
	}
	// A free string runs to max_tokens in the model's gibberish: bounded,
	// the call ends.
	props, _ := params["properties"].(map[string]any)
	for _, p := range props {
		if p, ok := p.(map[string]any); ok && p["type"] == "string" && p["enum"] == nil && p["format"] == nil && p["pattern"] == nil {
			p["maxLength"] = 12
		}
	}
	schema, err := json.Marshal(map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"enum": []string{tool.Function.Name}}, "arguments": params},
		"required":   []string{"name", "arguments"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "call", Schema: json.RawMessage(schema)}}
}
