package load

import (
	"math"
	"math/rand/v2"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/stream"
)

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
	// Instruction is the tokens of the instruction a synthetic prompt ends
	// with (0: as many as its words).
	Instruction int
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

// calibrationWords are the random words of the calibration prompts: a
// short one for the template's overhead, a long one for the words; the
// third is the short one with a synthetic prompt's instruction after it.
var calibrationWords = [2]int{8, 1024}

// CalibrationPrompts are the three prompts an endpoint's Tokens are
// fitted from (FitTokens), each to be sent with one token of answer.
func CalibrationPrompts() [3]Prompt {
	r := rand.New(rand.NewPCG(0x746f6b, 0x656e73)) // "tok", "ens"
	short, long := words(r, calibrationWords[0]), words(r, calibrationWords[1])
	prompt := func(s string) Prompt {
		return Prompt{Request: stream.Request{MaxTokens: 1, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: s}}}}
	}
	return [3]Prompt{prompt(short), prompt(long), prompt(short + "\n\n" + instruction)}
}

// FitTokens is the Tokens of an endpoint that counted these prompt tokens
// for CalibrationPrompts; ok is false when they say nothing usable (a
// server that counts no prompt, or fewer tokens for more words).
func FitTokens(counted [3]int) (t Tokens, ok bool) {
	w1, w2 := calibrationWords[0], calibrationWords[1]
	p1, p2, p3 := counted[0], counted[1], counted[2]
	if p1 <= 0 || p2 <= p1 || p3 <= p1 {
		return Tokens{}, false
	}
	per := float64(p2-p1) / float64(w2-w1)
	over := int(math.Round(float64(p1) - per*float64(w1)))
	return Tokens{PerWord: per, Overhead: max(0, over), Instruction: p3 - p1}, true
}

// words is n words of the corpus, drawn from r.
func words(r *rand.Rand, n int) string {
	var b strings.Builder
	for k := range n {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(corpus[r.IntN(len(corpus))])
	}
	return b.String()
}

// Calibrated is a source or load whose prompts are sized in tokens: told
// the endpoint's Tokens, it sizes them in the endpoint's.
type Calibrated interface {
	Calibrate(Tokens)
}
