package sim

import (
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// Answers tells a simulator what to answer: the reference answer of the
// fixture case whose question it was sent (the last user message, so that
// a conversation's or an agent loop's later turns find it), so that
// quality checks pass on a healthy simulator and fail exactly where it
// injects a wrong answer (WrongRate); and, for a case that offers tools,
// the calls it expects, step by step. It is safe for concurrent use.
type Answers struct {
	mu    sync.RWMutex
	byQ   map[string][2]string // question → right, wrong
	loops map[string]agentLoop // question → its tool calls
}

// agentLoop is what a tool case expects: steps[k] is the calls made after
// k tool results, final the answer after the last step's results.
type agentLoop struct {
	steps [][]ToolCall
	final string
}

// Add sets the right and wrong answers to a question.
func (a *Answers) Add(question, right, wrong string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byQ == nil {
		a.byQ = map[string][2]string{}
	}
	a.byQ[question] = [2]string{right, wrong}
}

// AddTools sets the agent loop a question starts, for requests that offer
// tools: steps[k] is the call (or the parallel calls) the model makes
// once the conversation holds k runs of tool results after the question,
// and final the answer it gives after the last step's results ("" = the
// question's Add answer, or the default). One step is a plain tool case.
func (a *Answers) AddTools(question string, steps [][]ToolCall, final string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.loops == nil {
		a.loops = map[string]agentLoop{}
	}
	a.loops[question] = agentLoop{steps: steps, final: final}
}

// Hook sets c's Answer, Wrong and Tools hooks to these answers, keeping
// c's own hooks for questions it does not know; with none, such a
// question gets the simulator's defaults (Config.OutputTokens lorem
// words, "I don't know", a call of the first tool offered), so a
// synthetic prompt still gets the length its spec asks for.
func (a *Answers) Hook(c *Config) {
	c.Answer, c.Wrong, c.Tools = a.pick(0, c.Answer), a.pick(1, c.Wrong), a.tools(c.Tools)
}

func (a *Answers) pick(i int, fallback func(*openai.ChatCompletionRequest) string) func(*openai.ChatCompletionRequest) string {
	return func(req *openai.ChatCompletionRequest) string {
		a.mu.RLock()
		q := a.known(question(req))
		v, ok := a.byQ[q]
		loop, isLoop := a.loops[q]
		a.mu.RUnlock()
		if i == 0 && isLoop && loop.final != "" && toolSteps(req) >= len(loop.steps) {
			return loop.final
		}
		if ok && v[i] != "" {
			return v[i]
		}
		if fallback != nil {
			return fallback(req)
		}
		return ""
	}
}

func (a *Answers) tools(fallback func(*openai.ChatCompletionRequest) []ToolCall) func(*openai.ChatCompletionRequest) []ToolCall {
	if fallback == nil {
		fallback = defaultToolCalls
	}
	return func(req *openai.ChatCompletionRequest) []ToolCall {
		a.mu.RLock()
		loop, ok := a.loops[a.known(question(req))]
		a.mu.RUnlock()
		if !ok {
			return fallback(req)
		}
		if k := toolSteps(req); k < len(loop.steps) {
			return loop.steps[k]
		}
		return nil
	}
}

// known is the question q asks: q, or the known question it ends with
// after a paragraph break — as a model answers the question at the end of
// a message whatever comes before it (cache: bust's marker, warm's shared
// prefix). Callers hold a.mu.
func (a *Answers) known(q string) string {
	if _, ok := a.byQ[q]; ok {
		return q
	}
	if _, ok := a.loops[q]; ok {
		return q
	}
	for rest := q; ; {
		_, after, ok := strings.Cut(rest, "\n\n")
		if !ok {
			return q
		}
		_, inQ := a.byQ[after]
		_, inLoops := a.loops[after]
		if inQ || inLoops {
			return after
		}
		rest = after
	}
}
