package config

import (
	"fmt"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Sweep is a rate sweep (GuideLLM's): one stream measured first (closed
// loop at concurrency 1: the rate a lone user gets), then the saturation
// rate (closed loop at Saturate requests in flight: the most the endpoint
// serves), then Steps open-loop rates from the first to the second, each
// a level of Samples requests judged against the scenario's objectives,
// ending with the highest rate that held. From and To, when > 0, replace
// the measured ends.
type Sweep struct {
	From, To float64 // req/s; 0: measured (one stream, saturation)
	Steps    int
	Saturate int // requests in flight of the saturation step
}

// DefaultSweep measures both ends and steps 8 rates between, saturating
// at 64 requests in flight.
func DefaultSweep() Sweep { return Sweep{Steps: 8, Saturate: 64} }

// Requests is how many measured requests a sweep sends, each step
// samples: the measured ends and the steps between.
func (w Sweep) Requests(samples int) int {
	n := w.Steps
	if w.From == 0 {
		n++
	}
	if w.To == 0 {
		n++
	}
	return n * samples
}

// sweepKeys are a sweep: block's keys.
var sweepKeys = section[*Sweep]{
	sweepEnd("from", "stream", "the first rate, or stream: one stream's, measured", func(w *Sweep) *float64 { return &w.From }),
	sweepEnd("to", "max", "the last rate, or max: saturation's, measured", func(w *Sweep) *float64 { return &w.To }),
	whole("steps", "the open-loop rates between", 1, 100, func(w *Sweep) *int { return &w.Steps }),
	whole("saturate", "the requests in flight of the saturation step", 1, maxConcurrency, func(w *Sweep) *int { return &w.Saturate }),
}

// sweepEnd is from: or to:, a rate or the word for measured.
func sweepEnd(name, measured, doc string, at func(*Sweep) *float64) row[*Sweep] {
	return row[*Sweep]{name, doc, func(p *configParser, w *Sweep, v *yaml.Node, key string) {
		if v.Value == measured {
			return
		}
		r, err := strconv.ParseFloat(v.Value, 64)
		if err != nil || !(r > 0) || r > maxRate || math.IsInf(r, 0) {
			p.errf(v, key, "%q: want %s (measured) or a rate in requests per second, > 0 and ≤ %d", v.Value, measured, maxRate)
		}
		*at(w) = r
	}}
}

// sweep reads sweep: {from: stream|R, to: max|R, steps: N, saturate: C}.
func (p *configParser) sweep(v *yaml.Node, key string) *Sweep {
	w := DefaultSweep()
	sweepKeys.parse(p, v, key, &w)
	if w.From > 0 && w.To > 0 && w.To < w.From {
		p.errf(v, key, "to %v is below from %v: want from ≤ to", w.To, w.From)
	}
	return &w
}

// String is the sweep as a label value: "stream-max", "1-50".
func (w Sweep) String() string {
	end := func(r float64, measured string) string {
		if r == 0 {
			return measured
		}
		return strconv.FormatFloat(r, 'g', -1, 64)
	}
	return fmt.Sprintf("%sto%s", end(w.From, "stream"), end(w.To, "max"))
}
