package session

import (
	"context"
	"fmt"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
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
		v := objective.JudgeServer(samples, c.Settings.Objectives, s.ServerOf(samples))
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

// CapacityLine says what a search found, for people.
func CapacityLine(scenario, endpoint string, c config.Capacity, r capacity.Result) string {
	unit := map[string]string{"concurrency": " in flight", "speedup": "× the trace"}[c.By]
	if unit == "" {
		unit = " req/s"
	}
	head := fmt.Sprintf("capacity (%s endpoint=%s, by %s, resolution %s, %d steps): ", scenario, endpoint, c.By,
		metric.Pct(c.Resolution), len(r.Steps))
	switch {
	case r.Limit == 0:
		return head + fmt.Sprintf("no level held, not even %s%s: %s", metric.Num(r.Beyond), unit, r.Why)
	case r.Beyond == 0:
		return head + fmt.Sprintf("at least %s%s: every objective held up to the search's max", metric.Num(r.Limit), unit)
	}
	return head + fmt.Sprintf("%s%s; above it, at %s%s: %s", metric.Num(r.Limit), unit, metric.Num(r.Beyond), unit, r.Why)
}

// CapacityUnit is the benchmark unit of a search's limit: max-rps, or
// max-concurrency for a search by concurrency.
func CapacityUnit(c config.Capacity) string {
	if c.By == "concurrency" || c.By == "speedup" {
		return metric.ByName("max_" + c.By).BenchUnit
	}
	return metric.ByName("max_rps").BenchUnit
}
