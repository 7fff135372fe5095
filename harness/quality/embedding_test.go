package quality

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmbeddingRank: the related input must rank above every unrelated
// one, the vectors have the dimension asked, and an answer that is no
// embeddings summary fails with why.
func TestEmbeddingRank(t *testing.T) {
	cases := map[string]struct {
		spec, got string
		ok        bool
		says      string
	}{
		"ranked":               {`{"type":"embedding_rank"}`, `{"dimension":8,"inputs":3,"cosine":[0.8,0.1]}`, true, "related cosine 0.800"},
		"unrelated above":      {`{"type":"embedding_rank"}`, `{"dimension":8,"inputs":3,"cosine":[0.2,0.6]}`, false, "input 3 (unrelated, cosine 0.600) ranks at or above"},
		"a tie":                {`{"type":"embedding_rank"}`, `{"dimension":8,"inputs":4,"cosine":[0.5,0.1,0.5]}`, false, "input 4"},
		"dimension as asked":   {`{"type":"embedding_rank","dimension":8}`, `{"dimension":8,"inputs":3,"cosine":[0.8,0.1]}`, true, ""},
		"another dimension":    {`{"type":"embedding_rank","dimension":1536}`, `{"dimension":8,"inputs":3,"cosine":[0.8,0.1]}`, false, "dimension 8, want 1536"},
		"two inputs":           {`{"type":"embedding_rank"}`, `{"dimension":8,"inputs":2,"cosine":[0.8]}`, false, "2 inputs"},
		"a chat answer":        {`{"type":"embedding_rank"}`, `positive`, false, "not an embeddings answer"},
		"similarities missing": {`{"type":"embedding_rank"}`, `{"dimension":8,"inputs":3,"cosine":[0.8]}`, false, "1 similarities for 3 inputs"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var spec MatchSpec
			require.NoError(t, json.Unmarshal([]byte(tc.spec), &spec))
			m, err := NewMatcher(spec, nil)
			require.NoError(t, err)
			ok, detail := m.Match(tc.got)
			assert.Equal(t, tc.ok, ok, detail)
			assert.Contains(t, detail, tc.says)
		})
	}
	_, err := NewMatcher(MatchSpec{Type: "embedding_rank", Options: map[string]json.RawMessage{"dimension": json.RawMessage(`0`)}}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "match.dimension")
}
