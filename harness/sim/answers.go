package sim

import (
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// Answers tells a simulator what to answer: the reference answer of the
// fixture case whose question it was sent (the last message), so that
// quality checks pass on a healthy simulator and fail exactly where it
// injects a wrong answer (WrongRate). It is safe for concurrent use, and a
// question it does not know gets the fallback's answer.
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
// hooks (or lorem, and "I don't know.") for questions it does not know.
func (a *Answers) Hook(c *Config) {
	c.Answer, c.Wrong = a.pick(0, c.Answer, Lorem), a.pick(1, c.Wrong, "I don't know.")
}

func (a *Answers) pick(i int, fallback func(*openai.ChatCompletionRequest) string, otherwise string) func(*openai.ChatCompletionRequest) string {
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
		return otherwise
	}
}

// Lorem is the answer to a question the simulator has no answer for.
const Lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."
