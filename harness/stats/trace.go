package stats

import "github.com/llmsla/llmsla/harness/sample"

// Trace is what a replayed trace's requests asked and what they got
// (METRICS.md: trace lag and lengths): the mean lengths the rows asked and
// the means measured over the same successful requests, the prompt's over
// those whose usage said it. N is 0 when the level replayed no trace.
type Trace struct {
	N                       int     // successful requests a row made
	AskedOutput, SentOutput float64 // mean output tokens asked (max_tokens) and received
	PromptN                 int     // of N, those with usage.prompt_tokens
	AskedPrompt, SentPrompt float64 // mean prompt tokens asked and counted by the server, over PromptN
}

// add counts a successful request.
func (t *Trace) add(s *sample.Sample) {
	if s.Asked == nil {
		return
	}
	t.N++
	t.AskedOutput += float64(s.Asked.OutputTokens)
	t.SentOutput += float64(s.OutputTokens)
	if s.PromptTokens > 0 {
		t.PromptN++
		t.AskedPrompt += float64(s.Asked.PromptTokens)
		t.SentPrompt += float64(s.PromptTokens)
	}
}

// means turns the sums into means.
func (t *Trace) means() {
	if t.N > 0 {
		t.AskedOutput, t.SentOutput = t.AskedOutput/float64(t.N), t.SentOutput/float64(t.N)
	}
	if t.PromptN > 0 {
		t.AskedPrompt, t.SentPrompt = t.AskedPrompt/float64(t.PromptN), t.SentPrompt/float64(t.PromptN)
	}
}
