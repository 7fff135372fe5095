package trace

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/llmsla/llmsla/harness/internal/gamma"
)

// Synthetic says what Generate puts in a trace, so that a test can hold
// Analyze to it: arrivals at Rate with gamma gaps of shape Burstiness
// (conditioned on the count, so the rate is exact), input and output
// lengths lognormal (long-tailed) around their medians, and a share of
// rows that open with one of Prefixes shared prompts of PrefixBlocks
// blocks each.
type Synthetic struct {
	Rows       int
	Rate       float64 // requests per second
	Burstiness float64 // gamma shape of the gaps
	// InputMedian and OutputMedian are the lognormal medians, Sigma their
	// log standard deviation.
	InputMedian, OutputMedian float64
	InputSigma, OutputSigma   float64
	// Shared is the probability a row opens with one of Prefixes shared
	// prefixes, each PrefixBlocks blocks of Block tokens, before its own
	// lognormal input.
	Shared       float64
	Prefixes     int
	PrefixBlocks int
	Seed         uint64
}

// Shipped is the trace traces/sample.mooncake.jsonl holds (its script,
// traces/generate.go, writes Generate(Shipped)).
var Shipped = Synthetic{Rows: 1200, Rate: 10, Burstiness: 0.5,
	InputMedian: 300, InputSigma: 0.8, OutputMedian: 60, OutputSigma: 0.7,
	Shared: 0.6, Prefixes: 6, PrefixBlocks: 2, Seed: 19}

// InputMean and OutputMean are the lengths' expected means: a lognormal's
// median · e^(σ²/2), plus the shared prefix's expected tokens for input.
func (g Synthetic) InputMean() float64 {
	return g.InputMedian*math.Exp(g.InputSigma*g.InputSigma/2) + g.Shared*float64(g.PrefixBlocks*DefaultBlock)
}

// OutputMean is the expected output length.
func (g Synthetic) OutputMean() float64 {
	return g.OutputMedian * math.Exp(g.OutputSigma*g.OutputSigma/2)
}

// PrefixShare is the expected share of prompt tokens in blocks an earlier
// row sent: the shared prefixes, all but their first use.
func (g Synthetic) PrefixShare() float64 {
	return g.Shared * float64(g.PrefixBlocks*DefaultBlock) / g.InputMean()
}

// Generate writes the synthetic trace g describes, in Mooncake's format.
func Generate(w io.Writer, g Synthetic) error {
	r := rand.New(rand.NewPCG(g.Seed, 0x7472616365)) // "trace"
	// Gaps drawn, then scaled so that Rows arrive over exactly
	// (Rows − 1)/Rate seconds.
	gaps := make([]float64, max(g.Rows-1, 0))
	sum := 0.0
	for i := range gaps {
		gaps[i] = gamma.Draw(r, g.Burstiness) / g.Burstiness // mean 1
		sum += gaps[i]
	}
	scale := float64(len(gaps)) / g.Rate / sum
	bw := bufio.NewWriter(w)
	next := int64(g.Prefixes * g.PrefixBlocks) // hash ids below are the shared prefixes'
	at := 0.0
	for i := range g.Rows {
		if i > 0 {
			at += gaps[i-1] * scale
		}
		var hs []int64
		input := 0
		if r.Float64() < g.Shared {
			p := r.IntN(g.Prefixes)
			for b := range g.PrefixBlocks {
				hs = append(hs, int64(p*g.PrefixBlocks+b))
			}
			input = g.PrefixBlocks * DefaultBlock
		}
		own := lognormal(r, g.InputMedian, g.InputSigma)
		for k := 0; k < own; k += DefaultBlock {
			hs = append(hs, next)
			next++
		}
		row := Row{At: time.Duration(math.Round(at*1000)) * time.Millisecond, Input: input + own, Output: lognormal(r, g.OutputMedian, g.OutputSigma), Hashes: hs}
		if err := writeMooncake(bw, row); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeMooncake writes a row as a Mooncake JSONL line, its At in whole
// milliseconds.
func writeMooncake(w *bufio.Writer, row Row) error {
	b := make([]byte, 0, 96+8*len(row.Hashes))
	b = append(b, `{"timestamp": `...)
	b = strconv.AppendInt(b, int64(row.At/time.Millisecond), 10)
	b = append(b, `, "input_length": `...)
	b = strconv.AppendInt(b, int64(row.Input), 10)
	b = append(b, `, "output_length": `...)
	b = strconv.AppendInt(b, int64(row.Output), 10)
	if len(row.Hashes) > 0 {
		b = append(b, `, "hash_ids": [`...)
		for i, h := range row.Hashes {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, h, 10)
		}
		b = append(b, ']')
	}
	b = append(b, "}\n"...)
	_, err := w.Write(b)
	return err
}

// lognormal draws a length in tokens, at least 1.
func lognormal(r *rand.Rand, median, sigma float64) int {
	return max(1, int(math.Round(median*math.Exp(sigma*r.NormFloat64()))))
}
