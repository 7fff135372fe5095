package sim

import (
	"math"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Each decision draws from its own stream, so that turning on one kind of
// randomness (say WrongRate) does not move the faults or jitter of a run.
const (
	streamFault uint64 = iota + 1
	streamWrong
	streamInvalid
	streamTTFT
	streamTPOT
	streamToolWrong
	streamToolBadJSON
	streamMetricsHang
	streamUsageOff
)

// draw is the deterministic generator for request index i and one stream.
func draw(seed int64, i int, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed)^(stream*0x9e3779b97f4a7c15), uint64(i)))
}

// pickFault maps one uniform draw onto the cumulative fault probabilities
// in FaultKinds order.
func (c *Config) pickFault(i int) string {
	if len(c.Faults) == 0 {
		return ""
	}
	u, cum := draw(c.Seed, i, streamFault).Float64(), 0.0
	for _, kind := range FaultKinds {
		cum += c.Faults[kind]
		if u < cum {
			return kind
		}
	}
	return ""
}

// jitter is a mean-1 lognormal factor with relative sd about sd, clamped so
// that one extreme draw cannot stall a suite.
func jitter(r *rand.Rand, sd float64) float64 {
	if sd <= 0 {
		return 1
	}
	f := math.Exp(sd*r.NormFloat64() - sd*sd/2)
	return min(max(f, 0.1), 10)
}

func scaled(d time.Duration, f float64) time.Duration {
	return time.Duration(float64(d) * f)
}

// promptTokens counts whitespace-separated words, the simulator's stand-in
// for a tokenizer: close enough to scale prefill, and easy to predict.
func promptTokens(req *openai.ChatCompletionRequest) int {
	n := 0
	promptWords(req, func(string, string) { n++ })
	return n
}

// promptWords calls yield with every prompt token of req in order, with
// its message's role: the words of every message's content and text
// parts, and of an assistant's tool calls (name, then arguments), so that
// a conversation's or an agent loop's history counts in full.
func promptWords(req *openai.ChatCompletionRequest, yield func(role, word string)) {
	words := func(role, s string) {
		for w := range strings.FieldsSeq(s) {
			yield(role, w)
		}
	}
	for _, m := range req.Messages {
		words(m.Role, m.Content)
		for _, p := range m.MultiContent {
			words(m.Role, p.Text)
		}
		for _, tc := range m.ToolCalls {
			words(m.Role, tc.Function.Name)
			words(m.Role, tc.Function.Arguments)
		}
	}
}

var lorem = spaced(strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do
eiusmod tempor incididunt ut labore et dolore magna aliqua ut enim ad minim veniam
quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat`))

// spaced gives each word the space that follows it, once, so that handing
// out lorem tokens allocates nothing per token.
func spaced(words []string) []string {
	for i, w := range words {
		words[i] = w + " "
	}
	return words
}

// loremTokens is n words, one token each, with the space that follows it so
// the concatenated content reads like text.
func loremTokens(n, offset int) []string {
	toks := make([]string, n)
	for k := range toks {
		toks[k] = lorem[(k+offset)%len(lorem)]
	}
	return toks
}

// maxTokenRunes bounds a hook answer's tokens: a compact JSON answer has no
// spaces and would otherwise go out as one chunk, leaving no TPOT to measure.
const maxTokenRunes = 8

// splitTokens cuts s into words, each keeping the whitespace after it, long
// words further cut into pieces of maxTokenRunes runes. Concatenating the
// tokens gives back s exactly, and every token is valid UTF-8 on its own.
func splitTokens(s string) []string {
	var toks []string
	for len(s) > 0 {
		end, runes, inSpace := 0, 0, false
		for end < len(s) {
			r, size := utf8.DecodeRuneInString(s[end:])
			space := unicode.IsSpace(r)
			if (inSpace && !space) || (!space && runes == maxTokenRunes) {
				break
			}
			inSpace = inSpace || (space && end > 0)
			end += size
			runes++
		}
		toks = append(toks, s[:end])
		s = s[end:]
	}
	return toks
}

// breakJSON makes an answer that no longer parses: without its last '}' (an
// unclosed object is what a cut-off JSON answer looks like) or, if it has
// none, without its second half.
func breakJSON(s string) string {
	if i := strings.LastIndexByte(s, '}'); i >= 0 {
		return s[:i] + s[i+1:]
	}
	r := []rune(s)
	return string(r[:len(r)/2])
}
