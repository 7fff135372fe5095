package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/progress"
	"github.com/llmsla/llmsla/harness/session"
)

// writePlan shows a bench's plan (session.Plan), one line per scenario ×
// endpoint and a total.
func writePlan(w io.Writer, p *session.Plan) {
	t := p.Totals()
	fmt.Fprintf(w, "plan: %s (scenario × endpoint × level), -count %d runs of each, -n %d requests a run%s\n",
		plural(t.Cells, "cell", "cells"), p.Count, p.N, shardNote(p.Run.Shard))
	for _, r := range p.Rows {
		fmt.Fprintf(w, "  %-12s %-10s %-28s %s\n", r.Cell.Scenario, r.Cell.Endpoint.Name, levelList(r.Levels), describe(r))
	}
	upTo := ""
	if t.UpTo {
		upTo = "up to "
	}
	line := fmt.Sprintf("  total: %s%d requests (%d measured, %d probes, warm-up and cold)", upTo, t.Requests(), t.Measured, t.Other)
	switch {
	case t.Known:
		line += ", expected ≈ " + metric.Duration(t.Expected) + " at the probed latencies (more if the endpoint slows under load)"
	case t.Span > 0:
		line += fmt.Sprintf("; at least %s (the levels' own schedules), the rest not probed", metric.Duration(t.Span))
	default:
		line += "; expected duration not probed"
	}
	fmt.Fprintln(w, line)
	fmt.Fprintln(w, "  "+budgetLine(p.Run))
}

func describe(r session.PlanRow) string {
	var parts []string
	switch {
	case r.Measured > 0 && r.Steps > 1:
		parts = append(parts, fmt.Sprintf("up to %d measured (agent loops of up to %d steps) + %d other", r.Measured, r.Steps, r.Other))
	case r.Measured > 0:
		parts = append(parts, fmt.Sprintf("%d measured + %d other", r.Measured, r.Other))
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

func levelList(levels []config.Level) string {
	names := make([]string, len(levels))
	for i, lv := range levels {
		names[i] = string(lv.Label())
	}
	s := strings.Join(names, " ")
	if len(s) > 28 {
		s = fmt.Sprintf("%s … (%d levels)", names[0], len(names))
	}
	return s
}

func shardNote(sh load.Shard) string {
	if !sh.On() {
		return ""
	}
	return fmt.Sprintf("; this is shard %s: its share of every level", sh)
}

func budgetLine(r session.Run) string {
	if r.MaxRequests == 0 && r.MaxDuration == 0 {
		return "budget: none (budget: {max_requests, max_duration} in sla.yaml, or -max-requests / -max-duration)"
	}
	var parts []string
	if r.MaxRequests > 0 {
		parts = append(parts, fmt.Sprintf("max_requests %d", r.MaxRequests))
	}
	if r.MaxDuration > 0 {
		parts = append(parts, "max_duration "+r.MaxDuration.String())
	}
	return "budget: " + strings.Join(parts, ", ")
}

// progressPlan is what the progress line counts the whole run against:
// the plan's requests, each cell's weighed by its probed time a request.
func progressPlan(p *session.Plan) progress.Whole {
	t := p.Totals()
	w := progress.Whole{Requests: t.Requests(), Cells: t.Cells, Count: p.Count, Weight: map[string]float64{}}
	for _, r := range p.Rows {
		if r.Latency <= 0 {
			return progress.Whole{Requests: w.Requests, Cells: w.Cells, Count: w.Count} // not probed: every request alike
		}
		per := float64(r.Measured+r.Other) / float64(len(r.Levels))
		for _, lv := range r.Levels {
			c := r.Cell
			c.Level = lv
			x := r.Latency.Seconds() / float64(max(lv.Pacer.Workers(), 1))
			w.Weight[c.Name()] = x
			w.Total += per * x
		}
	}
	return w
}
