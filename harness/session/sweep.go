package session

import (
	"context"
	"fmt"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
)

// Sweep runs the cell's scenario's sweep (Settings.Sweep) on its endpoint:
// one stream, the saturation rate, then the rates between, each a level of
// Settings.Samples requests labelled search=sweep and judged against
// Settings.Objectives. The cell's Level is not used.
func (s *Session) Sweep(ctx context.Context, c Cell) (capacity.SweepResult, error) {
	w := c.Settings.Sweep
	if w == nil {
		return capacity.SweepResult{}, fmt.Errorf("%s endpoint=%s: no sweep configured", c.Scenario, c.Endpoint.Name)
	}
	var r capacity.SweepResult
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
		st := capacity.SweepStep{Label: string(lv.Label()), Rate: rate, Held: v.OK()}
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
	for _, rate := range capacity.SweepRates(from, to, w.Steps) {
		if _, err := step(c.Settings.RateLevel(rate, "sweep"), false); err != nil {
			return r, err
		}
	}
	r.Limits(len(r.Steps) - len(capacity.SweepRates(from, to, w.Steps)))
	return r, nil
}
