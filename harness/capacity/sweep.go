package capacity

import (
	"math"
	"strconv"
)

// SweepStep is one level of a sweep: the rate it ran at (the rate a closed
// loop achieved, the rate an open loop asked) and whether every objective
// held there, or the first that did not.
type SweepStep struct {
	Label string
	Rate  float64
	Held  bool
	Why   string
}

// SweepResult is what a sweep found: the rate one stream sustains and the
// saturation rate (0 when the file gave the ends), every step, and the
// highest rate at which every objective held (0: none), with the first
// rate above it that failed and why.
type SweepResult struct {
	Stream, Saturation float64
	Steps              []SweepStep
	Limit, Beyond      float64
	Why                string
}

// SweepRates are n rates from from to to, evenly spaced, rounded to three
// significant digits (they name levels); one when the ends meet.
func SweepRates(from, to float64, n int) []float64 {
	if n <= 1 || to <= from {
		return []float64{round3(math.Max(from, to))}
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = round3(from + (to-from)*float64(i)/float64(n-1))
	}
	return out
}

func round3(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	return v
}

// Limits sets the highest rate that held among the open-loop steps (those
// from index first on), and the lowest one above it that did not: a
// failure below a rate that held was noise, and the limit stands.
func (r *SweepResult) Limits(first int) {
	for _, st := range r.Steps[first:] {
		if st.Held {
			r.Limit = math.Max(r.Limit, st.Rate)
		}
	}
	for _, st := range r.Steps[first:] {
		if !st.Held && st.Rate > r.Limit && (r.Beyond == 0 || st.Rate < r.Beyond) {
			r.Beyond, r.Why = st.Rate, st.Why
		}
	}
}
