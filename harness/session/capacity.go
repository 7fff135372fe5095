package session

import (
	"context"
	"fmt"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
)

// Capacity searches for the highest load at which every objective of the
// cell's scenario holds on its endpoint, by the cell's Settings.Capacity:
// each step a level of Settings.Samples requests (labelled
// search=capacity) judged against Settings.Objectives. The cell's Level is
// ignored: the search makes its own. A step that cannot be sent (a level
// this shard cannot take its share of, a stopped session) ends the search
// with that error, rather than counting as a fail.
func (s *Session) Capacity(ctx context.Context, c Cell) (capacity.Result, error) {
	cs := c.Settings.Capacity
	if cs == nil {
		return capacity.Result{}, fmt.Errorf("%s endpoint=%s: no capacity search configured", c.Scenario, c.Endpoint.Name)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var runErr error
	probe := func(ctx context.Context, x float64) (bool, string) {
		step := c
		step.Level = config.Level{Pacer: cs.Pacer(c.Settings, x), Search: "capacity"}
		n := c.Settings.Samples
		if step.Level.Pacer == nil {
			runErr = fmt.Errorf("%s: a search by %s needs a trace: level to replay faster", c.Scenario, cs.By)
			stop()
			return false, runErr.Error()
		}
		if _, own := step.Level.Pacer.(load.Sourced); own {
			n = c.Settings.Requests(step.Level) // a trace's step is the trace at that speedup
		}
		samples, err := s.Measure(ctx, step, n)
		if err != nil {
			runErr = err
			stop()
			return false, err.Error()
		}
		v := objective.JudgeServer(samples, c.Settings.Objectives, s.concerns.Beside(samples))
		if v.OK() {
			return true, ""
		}
		return false, v.Violations[0].String()
	}
	r, err := capacity.Search(ctx, cs.Options, probe)
	if runErr != nil {
		return r, runErr
	}
	return r, err
}
