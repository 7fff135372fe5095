package stream

import (
	"encoding/json"
	"strconv"
)

// fastEmbeddings decodes an embeddings body into r as encoding/json
// would, scanning it once: encoding/json checks the whole body and then
// decodes it again, 380–430 µs a 1,536-dimension vector (50 MB/s) where
// this takes 160–225 µs (106 MB/s) on this 2-core machine at load 7
// (BenchmarkEmbeddingVector -count 3): at 1,000 inputs/s, 0.4 of a core
// of the client's, where timers must keep time, instead of 0.2. It reports false for anything it does not
// decode the same way — a key with an escape, a vector element that is
// not a number, a duplicate the two would merge differently, trailing
// bytes — and the caller then decodes with encoding/json, whose error
// says what is wrong.
func fastEmbeddings(b []byte, r *embeddingsResponse) bool {
	p := &jparser{b: b}
	var data, model, usage bool // seen: encoding/json merges a key twice into the first
	ok := p.object(func(key []byte) bool {
		switch {
		case fold(key, "data"):
			return !data && fastEmbeddingsData(p, r) && set(&data)
		case fold(key, "model"):
			var raw []byte
			return !model && p.raw(&raw) && json.Unmarshal(raw, &r.Model) == nil && set(&model)
		case fold(key, "usage"):
			return !usage && sub(p, &r.Usage) && set(&usage)
		}
		return p.skip(0)
	})
	p.space()
	return ok && p.i == len(b)
}

// fastEmbeddingsData decodes the data array: null, or objects of an
// index and an embedding, other keys skipped; either key twice is left
// to encoding/json.
func fastEmbeddingsData(p *jparser, r *embeddingsResponse) bool {
	if p.null() {
		r.Data = nil
		return true
	}
	if !p.consume('[') {
		return false
	}
	r.Data = make([]embeddingsDatum, 0, 32)
	p.space()
	if p.consume(']') {
		return true
	}
	for {
		p.space()
		r.Data = append(r.Data, embeddingsDatum{})
		d := &r.Data[len(r.Data)-1]
		var index, embedding bool
		if !p.object(func(key []byte) bool {
			switch {
			case fold(key, "index"):
				return !index && p.integer(&d.Index) && set(&index)
			case fold(key, "embedding"):
				return !embedding && fastVector(p, &d.Embedding) && set(&embedding)
			}
			return p.skip(0)
		}) {
			return false
		}
		p.space()
		if p.consume(']') {
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}

func set(b *bool) bool {
	*b = true
	return true
}

// fastVector decodes an array of numbers (null: nil) with
// strconv.ParseFloat, as encoding/json decodes each into a float64.
func fastVector(p *jparser, dst *[]float64) bool {
	if p.null() {
		*dst = nil
		return true
	}
	if !p.consume('[') {
		return false
	}
	out := make([]float64, 0, 1024)
	p.space()
	if p.consume(']') {
		*dst = out
		return true
	}
	for {
		p.space()
		start := p.i
		if !p.number() {
			return false
		}
		x, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
		if err != nil {
			return false // out of range: encoding/json's error says so
		}
		out = append(out, x)
		p.space()
		if p.consume(']') {
			*dst = out
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}
