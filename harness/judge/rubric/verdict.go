package rubric

import "encoding/json"

// Verdict is a judge's judgment of one answer.
type Verdict struct {
	Score  float64 `json:"score"`
	Pass   bool    `json:"pass"`
	Reason string  `json:"reason"`
}

// MaxReason bounds a verdict's reason, in characters: a report line's
// worth. Servers that turn the schema into a grammar (Ollama, llama.cpp,
// vLLM) close the string there, so that a model that would ramble still
// gives a verdict.
const MaxReason = 300

// Schema is the structured output asked of the judge: an object of
// exactly score (a whole number on the rubric's scale), pass and reason.
func (r *Rubric) Schema() json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"score":  map[string]any{"type": "integer", "minimum": r.Min(), "maximum": r.Max()},
			"pass":   map[string]any{"type": "boolean"},
			"reason": map[string]any{"type": "string", "minLength": 1, "maxLength": MaxReason},
		},
		"required":             []string{"score", "pass", "reason"},
		"additionalProperties": false,
	})
	return b
}
