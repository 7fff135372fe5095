package load

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// Agent makes a prompt an agent loop (a fixture case with tool_results):
// after an answer that calls tools, the runner sends the follow-up turn —
// the conversation so far, the assistant's message with its calls, and
// a "tool" message with the case's result for each call — and so on
// until the model answers without calls, or MaxSteps model calls have
// been made. Each step is a sample of the loop's session (its Session
// and Step); the loop's end-to-end time and step count are read from
// them (package stats).
type Agent struct {
	Results  map[string]string // tool name → the content of its tool message
	MaxSteps int
}

// newAgent is the loop of a case with tool results: each result sent as
// its JSON text, a string result as the string itself.
func newAgent(c *quality.Case) *Agent {
	a := &Agent{Results: map[string]string{}, MaxSteps: c.MaxSteps}
	for name, raw := range c.ToolResults {
		var text string
		if json.Unmarshal(raw, &text) != nil {
			text = string(raw)
		}
		a.Results[name] = text
	}
	return a
}

// loop sends prompt p's agent loop, its first step at sched (the pacer's
// instant) and each later one as soon as the step before it ended. An
// error ends the loop (the step's sample says which); so does an answer
// without calls (the final answer), and a step that leaves it nothing
// to send — max_steps reached, or a call of a tool it has no result for
// — which fails the case's answer check: the loop gave no final answer.
func (run *run) loop(ctx context.Context, p Prompt, seq int, sched time.Time, keep func(sample.Sample)) {
	a := p.Agent
	session := run.id + "/" + strconv.Itoa(seq)
	req := p.Request
	for step := 1; ; step++ {
		s := run.one(ctx, run.d, p, req, seq, sched, step)
		s.Session = session
		next, stop := a.next(req, &s)
		if stop != "" && s.Quality != nil && p.Check != nil {
			p.Check.Unfinished(s.Quality, stop)
		}
		keep(s)
		if next == nil || ctx.Err() != nil {
			return
		}
		req, seq, sched = *next, int(run.extra.Add(1)-1), time.Time{}
	}
}

// next is the request after step s of the loop, nil when the loop ends
// there; stop says why it ends without a final answer ("" when it does
// not).
func (a *Agent) next(req stream.Request, s *sample.Sample) (next *stream.Request, stop string) {
	if !s.OK() || len(s.ToolCalls) == 0 {
		return nil, ""
	}
	if s.Step >= a.MaxSteps {
		return nil, fmt.Sprintf("max_steps %d reached, and the last step still made calls", a.MaxSteps)
	}
	calls := make([]openai.ToolCall, len(s.ToolCalls))
	results := make([]openai.ChatCompletionMessage, len(s.ToolCalls))
	for k, c := range s.ToolCalls {
		res, ok := a.Results[c.Name]
		if !ok {
			return nil, fmt.Sprintf("step %d called %q, which the case has no result for", s.Step, c.Name)
		}
		id := c.ID
		if id == "" {
			// The server gave none (some whole-call framings): the
			// result names the call by an id of the loop's own.
			id = fmt.Sprintf("call_%d_%d", s.Step, k)
		}
		calls[k] = openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
		results[k] = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Name: c.Name, Content: res}
	}
	out := req
	// A new slice: the fixture's request is shared by every loop of the case.
	out.Messages = slices.Concat(req.Messages,
		[]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleAssistant, Content: s.Content, ToolCalls: calls}}, results)
	return &out, ""
}
