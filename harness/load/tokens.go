package load

import "math"

// Tokens is how an endpoint counts the words llmsla's synthetic and trace
// prompts are made of: PerWord tokens a word (the simulator and most BPE
// vocabularies 1; a tokenizer that splits some of them more), and
// Overhead the tokens its chat template adds to a prompt. The session
// measures it once per endpoint before the first level that needs it
// (two requests of one token, their usage.prompt_tokens), so that a
// prompt asked at 1,024 tokens is 1,024 of the endpoint's, not 1,024
// words. The zero value is a word a token and no overhead.
type Tokens struct {
	PerWord  float64
	Overhead int
}

// Words is how many words make a prompt of tokens of the endpoint's
// tokens: at least one.
func (t Tokens) Words(tokens int) int {
	per := t.PerWord
	if per <= 0 || math.IsNaN(per) || math.IsInf(per, 0) {
		per = 1
	}
	return max(1, int(math.Round(float64(tokens-t.Overhead)/per)))
}

// Fit is the Tokens of an endpoint that counted p1 and p2 prompt tokens
// for prompts of w1 and w2 words (w2 > w1); ok is false when the counts
// say nothing usable (a server that counts no prompt, or counts fewer
// tokens for more words).
func Fit(w1, p1, w2, p2 int) (t Tokens, ok bool) {
	if w2 <= w1 || p1 <= 0 || p2 <= p1 {
		return Tokens{}, false
	}
	per := float64(p2-p1) / float64(w2-w1)
	over := int(math.Round(float64(p1) - per*float64(w1)))
	return Tokens{PerWord: per, Overhead: max(0, over)}, true
}

// Calibrated is a source or load whose prompts are sized in tokens: told
// the endpoint's Tokens, it sizes them in the endpoint's.
type Calibrated interface {
	Calibrate(Tokens)
}
