package load

import (
	"math/rand/v2"
	"strings"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/stream"
)

// Synthetic is a Source of prompts of a given length in tokens, for
// measuring how TTFT grows with the input (prefill). Each prompt is a draw
// of common English words, each of which the usual BPE tokenizers
// (OpenAI's, Llama's, Qwen's) read as one token with its leading space, and
// so does the simulator, which counts words: the length is right to within
// the chat template's few tokens, and the measured usage.prompt_tokens is
// what the figures use. Every prompt it ever gives is a new draw — the
// warm-up's, each run's, each length's — different from its first word,
// so that a server's prefix cache cannot skip any prefill.
type Synthetic struct {
	tokens int
	salt   uint64
	drawn  atomic.Uint64
	words  atomic.Int64 // words a prompt: tokens, or the endpoint's count of them (Calibrate)
}

// NewSynthetic returns a source of prompts of tokens tokens. seed makes a
// process's sequence of prompts repeatable; a zero seed draws one.
func NewSynthetic(tokens int, seed uint64) *Synthetic {
	if seed == 0 {
		seed = rand.Uint64()
	}
	s := &Synthetic{tokens: tokens, salt: seed ^ uint64(tokens)*0x9e3779b97f4a7c15}
	s.words.Store(int64(max(1, tokens-len(strings.Fields(instruction)))))
	return s
}

// Calibrate sizes the prompts in the endpoint's tokens: the instruction's
// and the template's tokens, then words to the length asked.
func (s *Synthetic) Calibrate(t Tokens) {
	inst := t.Instruction
	if inst == 0 {
		inst = len(strings.Fields(instruction))
	}
	s.words.Store(int64(t.Words(s.tokens - inst)))
}

// Words is how many words a prompt has before its instruction: for a
// test, or a plan to say.
func (s *Synthetic) Words() int { return int(s.words.Load()) }

// instruction ends each prompt; its words count toward the length.
const instruction = "Summarize the text above in one sentence."

// Prompt is a new synthetic prompt (i is not used: no two calls repeat).
func (s *Synthetic) Prompt(int) Prompt {
	r := rand.New(rand.NewPCG(s.salt, s.drawn.Add(1)))
	content := words(r, int(s.words.Load())) + "\n\n" + instruction
	return Prompt{Request: stream.Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: content}}}}
}

// corpus is common English words that are single tokens in cl100k, o200k
// and the Llama 2/3 vocabularies (with a leading space).
var corpus = strings.Fields(`the of and to in is was for that on as with by he at from his an were are which
this be or had not but one have first new after who they has her she also two their been its time when more
all other into year city there would some most may world over school only state can about part where many
people between years during war later under up three film used since because made these out season him then
back while known well him both such work called being team game than before any through well long day way
music north south east west house life high early river last them same around home second series each until
became end family government found often several show water against system name number public group did
major however small members old left took album local area large following like even played although near
what music three local made could own side line great band book power light place set town club good point
half best form water land field road story country little market case head church face land play near
form thing word fire best still hand eye`)
