package rubric

import "encoding/json"

// Verdict is a judge's judgment of one answer.
type Verdict struct {
	Score  float64 `json:"score"`
	Pass   bool    `json:"pass"`
	Reason string  `json:"reason"`
}

// Schema is the structured output asked of the judge: an object of
// exactly score (a number on the rubric's scale), pass and reason.
func (r *Rubric) Schema() json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"score":  map[string]any{"type": "number", "minimum": r.Min(), "maximum": r.Max()},
			"pass":   map[string]any{"type": "boolean"},
			"reason": map[string]any{"type": "string", "minLength": 1},
		},
		"required":             []string{"score", "pass", "reason"},
		"additionalProperties": false,
	})
	return b
}
