package quality

import (
	"fmt"

	"github.com/llmsla/llmsla/harness/sample"
)

// buildEmbeddingRank is the embeddings matcher: the answer is an
// embeddings request's summary (sample.Embedding, the case's messages
// embedded together), and it passes when the first input's vector is
// more similar to the second input's (the related text) than to every
// other's (unrelated ones), and, with the dimension option, the vectors
// have that dimension.
func buildEmbeddingRank(_ any, o options) (Matcher, error) {
	var dim int
	if ok, err := o.get("dimension", &dim, "a whole number from 1"); err != nil {
		return nil, err
	} else if ok && dim < 1 {
		return nil, &SpecError{"match.dimension", fmt.Sprintf("%d is not a whole number from 1", dim)}
	}
	return MatcherFunc(func(got string) (bool, string) {
		e, err := sample.ReadEmbedding(got)
		switch {
		case err != nil:
			return false, "not an embeddings answer: " + err.Error()
		case dim > 0 && e.Dimension != dim:
			return false, fmt.Sprintf("vectors of dimension %d, want %d", e.Dimension, dim)
		case e.Inputs < 3:
			return false, fmt.Sprintf("%d inputs: a ranking needs an anchor, a related text and an unrelated one", e.Inputs)
		}
		for k, c := range e.Cosine[1:] {
			if c >= e.Cosine[0] {
				return false, fmt.Sprintf("input %d (unrelated, cosine %.3f) ranks at or above input 2 (related, cosine %.3f)", k+3, c, e.Cosine[0])
			}
		}
		return true, fmt.Sprintf("related cosine %.3f above the unrelated ones", e.Cosine[0])
	}), nil
}
