package sample

import "fmt"

// Asked is what a replayed trace's row asked of its request: the prompt
// length its synthetic prompt was built to (or its own messages count)
// and the output length sent as max_tokens, so that a report can set the
// lengths sent beside the lengths asked.
type Asked struct {
	PromptTokens int `json:"prompt_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// checkAsked: a row asks at least one token each way, within MaxTokens.
func (s *Sample) checkAsked() error {
	if s.Asked == nil {
		return nil
	}
	for _, c := range []struct {
		key string
		v   int
	}{{"asked.prompt_tokens", s.Asked.PromptTokens}, {"asked.output_tokens", s.Asked.OutputTokens}} {
		if c.v < 0 || c.v > MaxTokens {
			return fmt.Errorf("%s: %d is out of range (allowed: 0 to 2^31)", c.key, c.v)
		}
	}
	return nil
}
