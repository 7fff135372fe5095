package load_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// loopCase is an agent loop over one tool, its result {"temp_c": 18}, at
// most 3 model calls.
const loopCase = `{"id":"loop","messages":[{"role":"user","content":"Weather in Paris?"}],` +
	`"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}],` +
	`"tool_results":{"get_weather":{"temp_c":18}},"max_steps":3,"expect_tool":{"name":"get_weather"},` +
	`"answer_calls":[{"name":"get_weather","arguments":{"city":"Paris"}}],"expected":"18","match":{"type":"contains"},"answer":"18 C","wrong_answer":"20 C"}`

func loopFixture(t *testing.T) *load.Fixture {
	t.Helper()
	p := filepath.Join(t.TempDir(), "loop.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(loopCase+"\n"), 0o644))
	cases, err := quality.LoadCases(p)
	require.NoError(t, err)
	f, err := load.NewFixture(cases, load.FixtureOptions{})
	require.NoError(t, err)
	return f
}

// agentDoer answers as a script says, one answer per step (the number of
// tool messages in the request, plus one), and keeps the requests.
type agentDoer struct {
	mu     sync.Mutex
	reqs   []stream.Request
	answer func(step int) sample.Sample
}

func (d *agentDoer) Do(_ context.Context, req stream.Request) sample.Sample {
	d.mu.Lock()
	d.reqs = append(d.reqs, req)
	d.mu.Unlock()
	step := 1
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			step++
		}
	}
	return d.answer(step)
}

func call(args string) sample.Sample {
	return sample.Sample{Finish: "tool_calls", ToolCalls: []sample.ToolCall{{ID: "c1", Name: "get_weather", Arguments: args}}}
}

// TestAgentLoopSteps: the runner sends a loop's follow-up turns as the
// conversation so far, the assistant's calls and the tool's result; the
// loop ends at the final answer, an error, max_steps, or a call it has
// no result for — the last two failing the case's answer check.
func TestAgentLoopSteps(t *testing.T) {
	cases := map[string]struct {
		answer     func(step int) sample.Sample
		steps      int
		unfinished string // the last step's detail, "" for a loop that finished
	}{
		"final answer after one call": {func(step int) sample.Sample {
			if step == 1 {
				return call(`{"city":"Paris"}`)
			}
			return sample.Sample{Finish: "stop", Content: "It is 18 C."}
		}, 2, ""},
		"calls until max_steps": {func(int) sample.Sample { return call(`{"city":"Paris"}`) }, 3, "no final answer: max_steps 3 reached"},
		"a tool it has no result for": {func(int) sample.Sample {
			return sample.Sample{Finish: "tool_calls", ToolCalls: []sample.ToolCall{{Name: "get_time", Arguments: "{}"}}}
		}, 1, `no final answer: step 1 called "get_time", which the case has no result for`},
		"an error ends it": {func(step int) sample.Sample {
			if step == 1 {
				return call(`{"city":"Paris"}`)
			}
			var s sample.Sample
			s.Fail(&sample.RequestError{Kind: sample.KindServerError, Status: 500, Message: "boom"})
			return s
		}, 2, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := &agentDoer{answer: tc.answer}
			samples := load.NewRunner().Run(context.Background(), d, loopFixture(t), load.Closed(1), 1)
			require.Len(t, samples, tc.steps)
			seqs := map[int]bool{}
			for k, s := range samples {
				assert.Equal(t, k+1, s.Step)
				assert.Equal(t, samples[0].Session, s.Session, "one session")
				assert.False(t, seqs[s.Seq], "seq %d twice", s.Seq)
				seqs[s.Seq] = true
				assert.NoError(t, s.Check())
			}
			last := samples[len(samples)-1]
			if tc.unfinished != "" {
				require.NotNil(t, last.Quality)
				assert.False(t, last.Quality.Pass())
				assert.Contains(t, last.Quality.Detail, tc.unfinished)
			} else if last.OK() {
				assert.True(t, last.Quality.Pass(), last.Quality.Detail)
			}
			if tc.steps < 2 {
				return
			}
			follow := d.reqs[1].Messages
			require.Len(t, follow, 3, "the question, the assistant's calls, the tool's result")
			assert.Equal(t, openai.ChatMessageRoleAssistant, follow[1].Role)
			require.Len(t, follow[1].ToolCalls, 1)
			assert.Equal(t, "c1", follow[1].ToolCalls[0].ID)
			assert.Equal(t, `{"city":"Paris"}`, follow[1].ToolCalls[0].Function.Arguments)
			assert.Equal(t, openai.ChatMessageRoleTool, follow[2].Role)
			assert.Equal(t, "c1", follow[2].ToolCallID)
			assert.Equal(t, `{"temp_c":18}`, follow[2].Content)
			assert.Len(t, d.reqs[0].Messages, 1, "the fixture's request is not changed by its loops")
			assert.Len(t, d.reqs[0].Tools, 1)
		})
	}
}

// TestAgentWarmupSendsOneStep: warm-up and the cold request send a loop's
// first step alone, so that a plan counts them as one request each.
func TestAgentWarmupSendsOneStep(t *testing.T) {
	d := &agentDoer{answer: func(int) sample.Sample { return call(`{"city":"Paris"}`) }}
	samples := load.NewRunner(load.ColdFirst(true), load.Warmup(2)).Run(context.Background(), d, loopFixture(t), load.Closed(1), 1)
	require.Len(t, samples, 1+2+3, "cold, two warm-ups, then one loop of max_steps 3")
	for _, s := range samples[:3] {
		assert.Zero(t, s.Step)
		assert.Empty(t, s.Session)
	}
	assert.Equal(t, 3, loopFixture(t).Steps())
}
