package stream

import (
	"fmt"

	"github.com/llmsla/llmsla/harness/sample"
)

// usageCounts is what the server's usage said over the stream (the last
// usage given wins, as servers that send one every chunk mean).
type usageCounts struct {
	seen      bool
	reasoning int  // completion_tokens_details.reasoning_tokens
	hidden    int  // total_tokens − prompt_tokens − completion_tokens, when positive
	cachedTok *int // prompt_tokens_details.cached_tokens or DeepSeek's prompt_cache_hit_tokens
	cacheN    *int // llama.cpp's timings.cache_n
}

// readUsage takes a chunk's usage (Groq's in x_groq when the chunk has
// none at the top) and llama.cpp's timings. It returns what is impossible
// about them ("" when nothing is): a count below zero, more cached tokens
// than the prompt has. Such a figure fails the request, as a protocol
// error, rather than give a sample no request can have.
func (st *streamState) readUsage(c *chunk) string {
	u := &st.counts
	if t := c.Timings; t != nil && t.CacheN != nil {
		if *t.CacheN < 0 {
			return fmt.Sprintf("timings.cache_n %d is negative", *t.CacheN)
		}
		n := *t.CacheN
		u.cacheN = &n
	}
	us := c.Usage
	if us == nil && c.XGroq != nil {
		us = c.XGroq.Usage
	}
	if us == nil {
		return ""
	}
	cached := us.PromptCacheHitTokens
	if d := us.PromptTokensDetails; d != nil && d.CachedTokens != nil {
		cached = d.CachedTokens
	}
	if msg := impossibleUsage(us, cached); msg != "" {
		return msg
	}
	u.seen = true
	st.s.OutputTokens, st.s.PromptTokens = us.CompletionTokens, us.PromptTokens
	completion := us.CompletionTokens
	st.s.UsageTokens = &completion // kept whatever count is used: tokens_disagree reads it
	if d := us.CompletionTokensDetails; d != nil {
		u.reasoning = d.ReasoningTokens
	}
	u.hidden = 0
	if us.TotalTokens-us.PromptTokens > us.CompletionTokens {
		u.hidden = us.TotalTokens - us.PromptTokens - us.CompletionTokens
	}
	if cached != nil {
		n := *cached
		u.cachedTok = &n
	}
	return ""
}

func impossibleUsage(us *chunkUsage, cached *int) string {
	for _, f := range []struct {
		name string
		n    int
	}{{"prompt_tokens", us.PromptTokens}, {"completion_tokens", us.CompletionTokens}, {"total_tokens", us.TotalTokens}} {
		if f.n < 0 {
			return fmt.Sprintf("usage.%s %d is negative", f.name, f.n)
		}
	}
	if d := us.CompletionTokensDetails; d != nil && d.ReasoningTokens < 0 {
		return fmt.Sprintf("usage.completion_tokens_details.reasoning_tokens %d is negative", d.ReasoningTokens)
	}
	if cached != nil && (*cached < 0 || *cached > us.PromptTokens) {
		return fmt.Sprintf("usage: %d cached tokens of a prompt of %d", *cached, us.PromptTokens)
	}
	return ""
}

// cached is the prompt tokens the server said it served from its cache,
// usage's figure before llama.cpp's timings; nil when it did not say.
func (u *usageCounts) cached() *int {
	if u.cachedTok != nil {
		return u.cachedTok
	}
	return u.cacheN
}

// count fills the token counts. Every output token counts, reasoning
// included (Sample.TPOT spans them from the first token of any kind); of
// them, ReasoningTokens were reasoning: the server's figure when its usage
// gives one, else what its total counts beyond prompt and completion
// (Gemini's hidden thoughts), else the reasoning chunks.
func (st *streamState) count() {
	s, u := st.s, &st.counts
	s.ReasoningTokens, s.ReasoningSource = st.thoughts, sample.ReasoningChunks
	if u.reasoning > 0 {
		s.ReasoningTokens, s.ReasoningSource = u.reasoning, sample.ReasoningUsage
	}
	defer func() {
		if s.ReasoningTokens == 0 {
			s.ReasoningSource = ""
		}
	}()
	if !u.seen {
		s.OutputTokens = s.Chunks
		s.TokenSource = sample.TokensEstimated
		return
	}
	s.TokenSource = sample.TokensUsage
	// A gap that is the cached tokens is a layer that counts its cache
	// reads outside prompt_tokens (Anthropic's input_tokens are net of
	// them), not reasoning.
	cacheGap := u.cachedTok != nil && *u.cachedTok == u.hidden
	switch {
	case u.reasoning == 0 && u.hidden > 0 && !cacheGap:
		// Reasoning the server generated and counted in its total alone:
		// output tokens all the same, before the first one streamed.
		s.OutputTokens += u.hidden
		s.ReasoningTokens, s.ReasoningSource = u.hidden, sample.ReasoningInferred
	case st.thoughts > 0 && s.OutputTokens < s.ReasoningTokens+st.answers:
		// Fewer tokens than the reasoning and answer chunks seen: this
		// server's completion_tokens counts the answer alone. Divided into
		// the time from the first reasoning token, it made tpot several
		// times too high; the reasoning is added, and the sum is ours.
		s.OutputTokens += s.ReasoningTokens
		s.TokenSource = sample.TokensEstimated
	}
	if s.Chunks > s.OutputTokens {
		// More token-bearing chunks than the usage counts: the count is
		// the chunks', and says it is ours.
		s.OutputTokens, s.TokenSource = s.Chunks, sample.TokensEstimated
	}
}
