package quality

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExpectedTextReadable: a failing case without an expected value shows
// what its matcher wants in words, not the matcher's JSON (a summary case
// once printed {"type":"constraint","min_words":15,…} as "expected").
func TestExpectedTextReadable(t *testing.T) {
	c := Case{Match: MatchSpec{Type: "constraint", Options: map[string]json.RawMessage{
		"min_words": json.RawMessage(`15`), "max_words": json.RawMessage(`45`),
		"keywords": json.RawMessage(`["council","garage|parking"]`)}}}
	assert.Equal(t, "constraint: keywords council, garage|parking; max_words 45; min_words 15", c.ExpectedText())
}
