package stream

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestIssue23Shapes: the four vendor shapes issue 23 found read wrong
// (items 12 to 15), each replayed from its recorded stream. It uses only
// what a sample had before they were fixed, so that it runs, and fails,
// on the code as it was.
func TestIssue23Shapes(t *testing.T) {
	t.Run("12 magistral content as typed parts", func(t *testing.T) {
		s, _ := replay(t, readVendorStream(t, "magistral-thinking.sse"))
		require.Equal(t, sample.KindNone, s.ErrKind, "a content array is no protocol error: %s", s.Err)
		assert.Equal(t, "426a1c8c62704d959621a94c1ff0cffb", s.ID, "the response id is kept")
		assert.Equal(t, "12 / 2 = 6", s.Content, "text parts are the answer")
		assert.Equal(t, 7, s.ReasoningTokens, "thinking parts are reasoning")
		assert.Greater(t, s.TTFA, s.TTFT, "the answer comes after the thinking")
	})
	t.Run("13 vllm tool call repeated in the finish chunk", func(t *testing.T) {
		s, _ := replay(t, readVendorStream(t, "vllm-tool-calls.sse"))
		require.True(t, s.OK(), s.Err)
		assert.Equal(t, 10, s.Chunks, "the repeat with arguments \"\" is no token")
		assert.Equal(t, 10, s.OutputTokens)
		assert.Equal(t, sample.TokensUsage, s.TokenSource, "the usage's count, not switched to estimated")
	})
	t.Run("14 gemini reasoning counted in total_tokens alone", func(t *testing.T) {
		s, _ := replay(t, readVendorStream(t, "gemini-hidden-thinking.sse"))
		require.True(t, s.OK(), s.Err)
		assert.Equal(t, 8, s.ReasoningTokens, "27 total - 7 prompt - 12 completion")
		assert.Equal(t, 20, s.OutputTokens, "the hidden reasoning is output too")
		tpot, ok := s.TPOT()
		require.True(t, ok)
		assert.Equal(t, (s.Total-s.TTFT)/time.Duration(12-1), tpot, "tpot over the 12 streamed tokens")
		answer, ok := s.AnswerTPOT()
		require.True(t, ok)
		assert.Equal(t, tpot, answer)
	})
	t.Run("15 azure content_filter then [DONE]", func(t *testing.T) {
		s, _ := replay(t, readVendorStream(t, "azure-content-filter.sse"))
		assert.False(t, s.OK(), "a filtered answer is no success")
		assert.Equal(t, "content_filter", string(s.ErrKind), s.Err)
		assert.Equal(t, "Here is how to", s.Content, "what came before the filter is kept")
	})
}
