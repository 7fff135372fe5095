package session

import (
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sim"
)

// Teach tells a simulator's answers what each case's reference model
// says, keyed by the case's question (its last message, as the simulator
// finds it): the right and wrong answer of a text case (served at the
// simulator's wrong rate), and a tool case's reference calls, one per
// agent step, then for an agent loop its final answer; a conversation's
// answer keyed by its last turn, and a recorded conversation's replies by
// the turns before them, so that a simulator plays the recording as the
// model would. The checks pass on a healthy simulator and fail exactly
// where it injects a fault.
func Teach(a *sim.Answers, cases []quality.Case) {
	for i := range cases {
		c := &cases[i]
		if c.IsConversation() {
			last := len(c.Turns) - 1
			for k, reply := range c.Assistant {
				a.Add(c.Turns[k], reply, "")
			}
			a.Add(c.Turns[last], c.Answer, c.WrongAnswer)
			continue
		}
		msgs := c.Render()
		q := msgs[len(msgs)-1].Content
		a.Add(q, c.Answer, c.WrongAnswer)
		if !c.IsToolCase() {
			continue
		}
		steps := make([][]sim.ToolCall, len(c.AnswerCalls))
		for k, call := range c.AnswerCalls {
			steps[k] = []sim.ToolCall{{Name: call.Name, Arguments: string(call.Arguments)}}
		}
		a.AddTools(q, steps, c.Answer)
	}
}
