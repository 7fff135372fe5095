package sample

import (
	"encoding/json"
	"fmt"
	"math"
)

// Embedding is what an embeddings request's sample holds as its Content
// (stream writes it, the quality check reads it, one validation for
// both): the vectors' dimension, how many inputs were embedded, and the
// cosine similarity of the first input's vector with each other's, in
// order. The vectors themselves are not kept (a batch of 1,536-dimension
// vectors is tens of kilobytes a request).
type Embedding struct {
	Dimension int       `json:"dimension"`
	Inputs    int       `json:"inputs"`
	Cosine    []float64 `json:"cosine"`
}

// Check reports what makes e a summary no embeddings response gives.
func (e Embedding) Check() error {
	switch {
	case e.Dimension < 1:
		return fmt.Errorf("dimension %d", e.Dimension)
	case e.Inputs < 1:
		return fmt.Errorf("%d inputs", e.Inputs)
	case len(e.Cosine) != e.Inputs-1:
		return fmt.Errorf("%d similarities for %d inputs (want one per input after the first)", len(e.Cosine), e.Inputs)
	}
	for i, c := range e.Cosine {
		if math.IsNaN(c) || c < -1-1e-6 || c > 1+1e-6 {
			return fmt.Errorf("similarity %d is %v, outside [-1, 1]", i+1, c)
		}
	}
	return nil
}

// Text is e as a sample's Content.
func (e Embedding) Text() string {
	b, _ := json.Marshal(e) // plain numbers: cannot fail
	return string(b)
}

// ReadEmbedding reads a sample's Content written by Embedding.Text.
func ReadEmbedding(content string) (Embedding, error) {
	var e Embedding
	if err := json.Unmarshal([]byte(content), &e); err != nil {
		return e, fmt.Errorf("not an embeddings summary: %w", err)
	}
	return e, e.Check()
}
