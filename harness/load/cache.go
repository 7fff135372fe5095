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
// prompt. It goes at the very start of the first user message, before the
// question: every chat template keeps that message (some drop a system
// prompt: the Ollama test model's does), and no two prompts then share a
// prefix beyond the chat template's own and the system prompt, which
// production shares too. The question itself is sent as the fixture wrote
// it, after the marker.

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
// in the first user message (the first message when none is a user's).
func withHead(msgs []openai.ChatCompletionMessage, head string) []openai.ChatCompletionMessage {
	out := slices.Clone(msgs)
	i := slices.IndexFunc(out, func(m openai.ChatCompletionMessage) bool { return m.Role == openai.ChatMessageRoleUser })
	if i < 0 && len(out) == 0 {
		return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: head}}
	}
	i = max(i, 0)
	if len(out[i].MultiContent) > 0 {
		out[i].MultiContent = append([]openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: head}}, out[i].MultiContent...)
		return out
	}
	out[i].Content = head + "\n\n" + out[i].Content
	return out
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
