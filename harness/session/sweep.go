package session

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
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

// Sweep runs the cell's scenario's sweep (Settings.Sweep) on its endpoint:
// one stream, the saturation rate, then the rates between, each a level of
// Settings.Samples requests labelled search=sweep and judged against
// Settings.Objectives. The cell's Level is not used.
func (s *Session) Sweep(ctx context.Context, c Cell) (SweepResult, error) {
	w := c.Settings.Sweep
	if w == nil {
		return SweepResult{}, fmt.Errorf("%s endpoint=%s: no sweep configured", c.Scenario, c.Endpoint.Name)
	}
	var r SweepResult
	step := func(lv config.Level, closed bool) (float64, error) {
		c.Level = lv
		samples, err := s.Measure(ctx, c, c.Settings.Samples)
		if err != nil {
			return 0, err
		}
		v := objective.Judge(samples, c.Settings.Objectives)
		rate := v.Stats.ReqPerSec
		if !closed {
			rate, _ = lv.Label().Float("rate")
		}
		st := SweepStep{Label: string(lv.Label()), Rate: rate, Held: v.OK()}
		if !v.OK() {
			st.Why = v.Violations[0].String()
		}
		r.Steps = append(r.Steps, st)
		return rate, nil
	}
	from, to := w.From, w.To
	var err error
	if from == 0 {
		if from, err = step(config.Level{Pacer: load.Closed(1), Search: "sweep", FixedTokens: c.Settings.FixedTokens}, true); err != nil {
			return r, err
		}
		r.Stream = from
	}
	if to == 0 {
		if to, err = step(config.Level{Pacer: load.Closed(w.Saturate), Search: "sweep", FixedTokens: c.Settings.FixedTokens}, true); err != nil {
			return r, err
		}
		r.Saturation = to
	}
	for _, rate := range sweepRates(from, to, w.Steps) {
		if _, err := step(c.Settings.RateLevel(rate, "sweep"), false); err != nil {
			return r, err
		}
	}
	r.limit(len(r.Steps) - len(sweepRates(from, to, w.Steps)))
	return r, nil
}

// sweepRates are n rates from from to to, evenly spaced, rounded to three
// significant digits (they name levels); one when the ends meet.
func sweepRates(from, to float64, n int) []float64 {
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

// limit sets the highest rate that held among the open-loop steps (those
// from index first on), and the lowest one above it that did not: a
// failure below a rate that held was noise, and the limit stands.
func (r *SweepResult) limit(first int) {
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

// SweepLine says what a sweep found, for people: the ends, then the
// highest rate that held, as the capacity line says it.
func SweepLine(scenario, endpoint string, r SweepResult) string {
	head := fmt.Sprintf("sweep (%s endpoint=%s, %d steps", scenario, endpoint, len(r.Steps))
	if r.Stream > 0 {
		head += fmt.Sprintf("; one stream %s req/s", metric.Num(r.Stream))
	}
	if r.Saturation > 0 {
		head += fmt.Sprintf(", saturation %s req/s", metric.Num(r.Saturation))
	}
	head += "): "
	switch {
	case r.Limit == 0:
		return head + fmt.Sprintf("no rate held, not even %s req/s: %s", metric.Num(r.Beyond), r.Why)
	case r.Beyond == 0:
		return head + fmt.Sprintf("every objective held up to %s req/s, the sweep's top", metric.Num(r.Limit))
	}
	return head + fmt.Sprintf("every objective held up to %s req/s; above it, at %s req/s: %s", metric.Num(r.Limit), metric.Num(r.Beyond), r.Why)
}
