package stream

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFixedLengthBody: a fixed answer length is asked with the parameters
// the endpoint's server takes — vLLM and SGLang min_tokens and ignore_eos,
// llama.cpp ignore_eos — max_tokens N for all; OpenAI's API gets none of
// them, which it would refuse.
func TestFixedLengthBody(t *testing.T) {
	for kind, want := range map[Kind]map[string]any{
		KindVLLM:     {"max_tokens": 40.0, "min_tokens": 40.0, "ignore_eos": true},
		KindSGLang:   {"max_tokens": 40.0, "min_tokens": 40.0, "ignore_eos": true},
		KindLlamaCpp: {"max_tokens": 40.0, "ignore_eos": true},
		KindOpenAI:   {"max_tokens": 40.0},
	} {
		b, err := NewClient(Endpoint{Name: "e", BaseURL: "http://h/v1", Model: "m", Kind: kind}).Body(Request{MaxTokens: 40, FixedTokens: 40})
		require.NoError(t, err)
		var got map[string]any
		require.NoError(t, json.Unmarshal(b, &got))
		for _, k := range []string{"max_tokens", "min_tokens", "ignore_eos"} {
			assert.Equal(t, want[k], got[k], "%s: %s", kind, k)
		}
	}
}
