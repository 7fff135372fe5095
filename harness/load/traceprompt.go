package load

import (
	"math/rand/v2"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
	"github.com/llmsla/llmsla/harness/trace"
)

// The prompts of a trace's rows, and the queue that hands each from the
// replay's reader to the request that sends it.

// rowQueue hands the rows a pacer sends to the prompts of their
// requests: only the rows sent and not yet asked for are held.
type rowQueue struct {
	mu     sync.Mutex
	rows   map[int]Prompt
	salt   uint64
	runs   uint64
	err    error
	tokens Tokens // the endpoint's count of a row's words (Trace.Calibrate)
}

// begin starts a run: no rows held, and a new salt, so that a run's
// prompts share prefixes as the trace's rows do, and none with another
// run's (a warm-up does not fill the cache a measured run finds).
func (q *rowQueue) begin(seed uint64) uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	if seed == 0 {
		seed = rand.Uint64()
	}
	q.runs++
	q.rows, q.err = map[int]Prompt{}, nil
	q.salt = seed*0x9e3779b97f4a7c15 + q.runs
	return q.salt
}

func (q *rowQueue) put(i int, p Prompt) {
	q.mu.Lock()
	q.rows[i] = p
	q.mu.Unlock()
}

func (q *rowQueue) fail(err error) {
	q.mu.Lock()
	q.err = err
	q.mu.Unlock()
}

func (q *rowQueue) failed() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// prompt is request i's prompt: the row the pacer sent as i, or, for a
// request sent before any pacing (the run's cold one), the trace's first.
func (q *rowQueue) prompt(t Trace) func(i int) Prompt {
	block := t.Spec.Block
	if block <= 0 {
		block = trace.DefaultBlock
	}
	return func(i int) Prompt {
		q.mu.Lock()
		p, ok := q.rows[i]
		delete(q.rows, i)
		salt := q.salt
		q.mu.Unlock()
		if !ok {
			return rowPrompt(t.Sum.First, ^salt, block, q.calibration())
		}
		return p
	}
}

// calibration is the endpoint's count of words, as Calibrate set it.
func (q *rowQueue) calibration() Tokens {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.tokens
}

// rowPrompt is a row's request: its messages, or Input tokens of words in
// the endpoint's count (tok) — block by block of its hash ids, each
// block's words drawn from the hash (and the run's salt), then words of
// the row's own — and max_tokens its Output.
func rowPrompt(row trace.Row, salt uint64, block int, tok Tokens) Prompt {
	req := stream.Request{MaxTokens: row.Output}
	if len(row.Messages) > 0 {
		for _, m := range row.Messages {
			req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
		}
		return Prompt{Request: req, Asked: &sample.Asked{PromptTokens: row.Input, OutputTokens: row.Output}}
	}
	var b strings.Builder
	total := tok.Words(row.Input)
	if tok == (Tokens{}) {
		total = row.Input // a word a token, as before the endpoint said otherwise
	}
	b.Grow(total * 6)
	n := 0
	words := func(r *rand.Rand, k int) {
		for ; k > 0 && n < total; k-- {
			if n > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(corpus[r.IntN(len(corpus))])
			n++
		}
	}
	for _, h := range row.Hashes {
		words(rand.New(rand.NewPCG(salt^0x626c6f636b, uint64(h))), tok.Words(block)) // "block", in words
	}
	words(rand.New(rand.NewPCG(salt^0x726f77, uint64(row.Line))), total) // "row"
	req.Messages = []openai.ChatCompletionMessage{{Role: "user", Content: b.String()}}
	return Prompt{Request: req, Asked: &sample.Asked{PromptTokens: row.Input, OutputTokens: row.Output}}
}
