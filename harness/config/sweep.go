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

var sweepKeys = []string{"from", "to", "steps", "saturate"}

// sweep reads sweep: {from: stream|R, to: max|R, steps: N, saturate: C}.
func (p *configParser) sweep(v *yaml.Node, key string) *Sweep {
	w := DefaultSweep()
	p.mapping(v, key, sweepKeys, func(k string, v *yaml.Node) {
		k2 := key + "." + k
		switch k {
		case "from", "to":
			end := map[string]string{"from": "stream", "to": "max"}[k]
			if v.Value == end {
				return // measured
			}
			r, err := strconv.ParseFloat(v.Value, 64)
			if err != nil || !(r > 0) || r > maxRate || math.IsInf(r, 0) {
				p.errf(v, k2, "%q: want %s (measured) or a rate in requests per second, > 0 and ≤ %d", v.Value, end, maxRate)
			}
			if k == "from" {
				w.From = r
			} else {
				w.To = r
			}
		case "steps":
			w.Steps = p.count(v, k2, 1, 100)
		case "saturate":
			w.Saturate = p.count(v, k2, 1, maxConcurrency)
		}
	})
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
