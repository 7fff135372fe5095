package harness

import (
	"context"
	"fmt"
	"testing"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// benchCapacity searches for the scenario's capacity on an endpoint, as one
// benchmark (endpoint=prod/capacity=rate) reporting max-rps (or
// max-concurrency), so that the gate can block a deploy that lowers it.
// Every step's samples are recorded, labelled search=capacity.
func (s *Session) benchCapacity(b *testing.B, scenario string, ep stream.Endpoint, conf config.Scenario, src *load.Fixture) {
	c := conf.Capacity
	b.Run(fmt.Sprintf("endpoint=%s/capacity=%s", sample.NameValue(ep.Name), c.By), func(b *testing.B) {
		if b.N == 1 {
			return // go test's probe: a search is not something to try once
		}
		r, err := s.Capacity(context.Background(), scenario, ep, conf, src)
		s.mustRecord(b)
		if err != nil {
			b.Fatalf("capacity search (%s endpoint=%s): %v", scenario, ep.Name, err)
		}
		b.Log(CapacityLine(scenario, ep.Name, *c, r))
		b.ReportMetric(0, "ns/op")
		unit := metric.ByName("max_rps").BenchUnit
		if c.By == "concurrency" {
			unit = metric.ByName("max_concurrency").BenchUnit
		}
		b.ReportMetric(r.Limit, unit)
	})
}

// Capacity runs a capacity search of the scenario on the endpoint: each
// step a level of conf.Samples requests judged against conf.Objectives.
func (s *Session) Capacity(ctx context.Context, scenario string, ep stream.Endpoint, conf config.Scenario, src *load.Fixture) (capacity.Result, error) {
	c := conf.Capacity
	// A step that cannot be sent (a level this shard cannot take its share
	// of) ends the search with that error, rather than counting as a fail.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var runErr error
	probe := func(ctx context.Context, x float64) (bool, string) {
		lv := config.Level{Pacer: c.Pacer(conf, x), Search: "capacity"}
		samples, err := s.run(ctx, scenario, ep, conf, lv, conf.Samples, src, false)
		if err != nil {
			runErr = err
			stop()
			return false, err.Error()
		}
		v := objective.Judge(samples, conf.Objectives)
		if v.OK() {
			return true, ""
		}
		return false, v.Violations[0].String()
	}
	r, err := capacity.Search(ctx, c.Options, probe)
	if runErr != nil {
		return r, runErr
	}
	return r, err
}

// CapacityLine says what a search found, for people.
func CapacityLine(scenario, endpoint string, c config.Capacity, r capacity.Result) string {
	unit := " req/s"
	if c.By == "concurrency" {
		unit = " in flight"
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
