package load

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/sample"
)

// The cache policies (sla.yaml's cache:, sample.CachePolicy) as sources:
// what a server's prefix cache can reuse of the prompts a run sends.
//
// A marker is a short line, "[request 3f9a1c2e7b4d5a60]", new for every
// prompt. It goes at the very start of the system prompt — a system
// message of its own when the scenario has none — so that the question
// is sent as the fixture wrote it (a server answers by it, a simulator
// looks its answer up by it) and no two prompts share a prefix beyond
// the chat template's own.

// Cache is src as policy sends it: natural as it is; bust with a new
// marker first in every prompt; warm with a shared prefix of prefix
// tokens (SharedPrefix) before the marker in even prompts — which find it
// cached once a first request has warmed it — and after the marker in odd
// ones, which find nothing cached: the same words either way, so that
// their time to first token differs by the cache alone.
func Cache(src Source, policy sample.CachePolicy, prefix int) Source {
	switch policy {
	case sample.CacheBust:
		return &marked{src: src, salt: rand.Uint64()}
	case sample.CacheWarm:
		return &marked{src: src, salt: rand.Uint64(), prefix: SharedPrefix(prefix)}
	}
	return src
}

// marked puts a marker, and a shared prefix, first in each prompt.
type marked struct {
	src    Source
	salt   uint64
	drawn  atomic.Uint64
	prefix string
}

// Prompt is src's prompt i with its head: a marker drawn anew at each
// call, so that a warm-up asking prompt 0 again does not warm the measured
// prompt 0.
func (m *marked) Prompt(i int) Prompt {
	p := m.src.Prompt(i)
	mark := Marker(m.salt, m.drawn.Add(1))
	head := mark
	switch {
	case m.prefix == "":
	case i%2 == 0:
		head = m.prefix + "\n\n" + mark
	default:
		head = mark + "\n\n" + m.prefix
	}
	p.Request.Messages = withHead(p.Request.Messages, head)
	return p
}

// Marker is the k-th marker of a source salted salt.
func Marker(salt, k uint64) string {
	r := rand.New(rand.NewPCG(salt, k))
	return "[request " + strconv.FormatUint(r.Uint64(), 16) + "]"
}

// withHead is msgs (not changed: they are the fixture's) with head first
// in the system prompt, or as a system message before the rest when the
// first message is not one.
func withHead(msgs []openai.ChatCompletionMessage, head string) []openai.ChatCompletionMessage {
	if len(msgs) > 0 && msgs[0].Role == openai.ChatMessageRoleSystem && len(msgs[0].MultiContent) == 0 {
		out := slices.Clone(msgs)
		out[0].Content = head + "\n\n" + out[0].Content
		return out
	}
	return append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: head}}, msgs...)
}

// SharedPrefix is the shared prefix of cache: warm, tokens long: a line
// saying what it is, then common English words (each one token with its
// leading space in the usual tokenizers, and one in the simulator),
// drawn from a fixed seed, so that every run and machine sends the same
// prefix, as production sends the same system prompt.
func SharedPrefix(tokens int) string {
	const lead = "Shared context, the same for every request; the task follows it."
	words := strings.Fields(lead)
	r := rand.New(rand.NewPCG(uint64(tokens), 0x5eed))
	for len(words) < tokens {
		words = append(words, corpus[r.IntN(len(corpus))])
	}
	return strings.Join(words[:max(tokens, 1)], " ")
}
