package sim

import (
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// Answers tells a simulator what to answer: the reference answer of the
// fixture case whose question it was sent (the last message), so that
// quality checks pass on a healthy simulator and fail exactly where it
// injects a wrong answer (WrongRate). It is safe for concurrent use.
type Answers struct {
	mu  sync.RWMutex
	byQ map[string][2]string // question → right, wrong
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

// Hook sets c's Answer and Wrong hooks to these answers, keeping c's own
// hooks for questions it does not know; with none, such a question gets
// the simulator's defaults (Config.OutputTokens lorem words, "I don't
// know"), so a synthetic prompt still gets the length its spec asks for.
func (a *Answers) Hook(c *Config) {
	c.Answer, c.Wrong = a.pick(0, c.Answer), a.pick(1, c.Wrong)
}

func (a *Answers) pick(i int, fallback func(*openai.ChatCompletionRequest) string) func(*openai.ChatCompletionRequest) string {
	return func(req *openai.ChatCompletionRequest) string {
		if n := len(req.Messages); n > 0 {
			a.mu.RLock()
			v, ok := a.byQ[req.Messages[n-1].Content]
			a.mu.RUnlock()
			if ok && v[i] != "" {
				return v[i]
			}
		}
		if fallback != nil {
			return fallback(req)
		}
		return ""
	}
}
