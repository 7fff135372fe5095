package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/metric"
)

// Plan is a bench's plan as people read it before the first request (the
// session computes it: session.Plan.Report), one row per scenario ×
// endpoint.
type Plan struct {
	Cells, Count, N int
	Shard           string // "1/3", "" alone
	Rows            []PlanRow
	Requests        int // measured + other
	Measured, Other int
	UpTo            bool          // a count is an upper bound (agent loops)
	Known           bool          // every row with measured requests was probed
	Expected, Span  time.Duration // at the probed latencies; the levels' own schedules
	// Decided is the measured requests at the least when levels stop
	// once decided (stop: decided), if every objective is met with room;
	// 0 when none does.
	Decided     int
	MaxRequests int // the budget, 0 none
	MaxDuration time.Duration
}

// PlanRow is one scenario on one endpoint.
type PlanRow struct {
	Scenario, Endpoint string
	Levels             []string
	Measured, Other    int
	Steps              int // an agent loop's most requests a prompt
	Soak               time.Duration
	Capacity, Sweep    bool
	Latency, Expected  time.Duration // one probed request; the row's estimate
	// Decided is, for levels that stop once decided (stop: decided), the
	// measured requests when each is decided as early as it can be;
	// Measured is then the worst case. Needs names the objective that
	// needs the most ("ttft p95 ≤ 600 ms needs 78"), or what keeps the
	// levels from stopping early.
	Decided int
	Needs   string
}

// WritePlan shows a plan, one line per scenario × endpoint and a total.
func WritePlan(w io.Writer, p Plan) {
	shard := ""
	if p.Shard != "" {
		shard = fmt.Sprintf("; this is shard %s: its share of every level", p.Shard)
	}
	fmt.Fprintf(w, "plan: %s (scenario × endpoint × level), -count %s of each, -n %d requests a run%s\n",
		Plural(p.Cells, "cell", "cells"), Plural(p.Count, "run", "runs"), p.N, shard)
	for _, r := range p.Rows {
		fmt.Fprintf(w, "  %-12s %-10s %-28s %s\n", r.Scenario, r.Endpoint, levelList(r.Levels), r.describe())
	}
	upTo := ""
	if p.UpTo {
		upTo = "up to "
	}
	line := fmt.Sprintf("  total: %s%d requests (%d measured, %d probes, warm-up and cold)", upTo, p.Requests, p.Measured, p.Other)
	switch {
	case p.Known:
		line += ", expected ≈ " + metric.Duration(p.Expected) + " at the probed latencies (more if the endpoint slows under load)"
	case p.Span > 0:
		line += fmt.Sprintf("; at least %s (the levels' own schedules), the rest not probed", metric.Duration(p.Span))
	default:
		line += "; expected duration not probed"
	}
	fmt.Fprintln(w, line)
	if p.Decided > 0 && p.Decided < p.Measured {
		fmt.Fprintf(w, "  stop: decided: as few as %d measured (%d fewer) if every objective is met with room\n", p.Decided, p.Measured-p.Decided)
	}
	fmt.Fprintln(w, "  "+p.budget())
}

func (r PlanRow) describe() string {
	var parts []string
	switch {
	case r.Measured > 0 && r.Steps > 1:
		parts = append(parts, fmt.Sprintf("up to %d measured (agent loops of up to %d steps) + %d other", r.Measured, r.Steps, r.Other))
	case r.Measured > 0:
		parts = append(parts, fmt.Sprintf("%d measured + %d other", r.Measured, r.Other))
	}
	switch {
	case r.Needs != "" && r.Decided >= r.Measured:
		parts = append(parts, fmt.Sprintf("stop: decided: its levels send their count (%s)", r.Needs))
	case r.Needs != "":
		parts = append(parts, fmt.Sprintf("stop: decided: as few as %d measured if every objective is met with room (%s), %d at worst", r.Decided, r.Needs, r.Measured))
	}
	if r.Soak > 0 {
		parts = append(parts, fmt.Sprintf("soak: %s of sending + %d other", r.Soak, r.Other))
	}
	if r.Capacity {
		parts = append(parts, "then a capacity search (its steps are not counted)")
	}
	if r.Sweep {
		parts = append(parts, "a rate sweep included (its time not estimated: its rates are measured)")
	}
	if r.Latency > 0 {
		parts = append(parts, fmt.Sprintf("≈ %s (one request took %s)", metric.Duration(r.Expected), metric.Duration(r.Latency)))
	}
	return strings.Join(parts, ", ")
}

func levelList(names []string) string {
	s := strings.Join(names, " ")
	if len(s) > 28 && len(names) > 0 {
		s = fmt.Sprintf("%s … (%d levels)", names[0], len(names))
	}
	return s
}

func (p Plan) budget() string {
	if p.MaxRequests == 0 && p.MaxDuration == 0 {
		return "budget: none (budget: {max_requests, max_duration} in sla.yaml, or -max-requests / -max-duration)"
	}
	var parts []string
	if p.MaxRequests > 0 {
		parts = append(parts, fmt.Sprintf("max_requests %d", p.MaxRequests))
	}
	if p.MaxDuration > 0 {
		parts = append(parts, "max_duration "+p.MaxDuration.String())
	}
	return "budget: " + strings.Join(parts, ", ")
}
