package report

import (
	"fmt"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/llmsla/llmsla/harness/metric"
)

// The lines that say what a search found: a capacity search's limit, a
// sweep's.

// CapacityLine says what a search found, for people.
func CapacityLine(scenario, endpoint, by string, resolution float64, r capacity.Result) string {
	unit := map[string]string{"concurrency": " in flight", "speedup": "× the trace"}[by]
	if unit == "" {
		unit = " req/s"
	}
	head := fmt.Sprintf("capacity (%s endpoint=%s, by %s, resolution %s, %d steps): ", scenario, endpoint, by,
		metric.Pct(resolution), len(r.Steps))
	switch {
	case r.Limit == 0:
		return head + fmt.Sprintf("no level held, not even %s%s: %s", metric.Num(r.Beyond), unit, r.Why)
	case r.Beyond == 0:
		return head + fmt.Sprintf("at least %s%s: every objective held up to the search's max", metric.Num(r.Limit), unit)
	}
	return head + fmt.Sprintf("%s%s; above it, at %s%s: %s", metric.Num(r.Limit), unit, metric.Num(r.Beyond), unit, r.Why)
}

// SweepLine says what a sweep found, for people: the ends, then the
// highest rate that held, as the capacity line says it.
func SweepLine(scenario, endpoint string, r capacity.SweepResult) string {
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
