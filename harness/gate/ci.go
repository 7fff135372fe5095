package gate

import (
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
)

// The report's lines that the text report and its CI forms (package
// gateci: JUnit, markdown, annotations) share.

// Headline is the report's first line: "gate FAIL: NEW vs BASE — 1
// regressed, …".
func (r *Report) Headline() string {
	var b strings.Builder
	r.WriteText(&b)
	first, _, _ := strings.Cut(b.String(), "\n")
	return first
}

// Line is the figure as the text report's line says it:
// "REGRESSED latency chat × sim ttft-p95-ms: 20.1 → 25.3 +25.9% (p=…)".
func (f Finding) Line(label string) string {
	return fmt.Sprintf("%s %s %s %s: %s → %s %s (%s)", label, f.Family, f.Benchmark, f.Unit, metric.Precise(f.Old), metric.Precise(f.New), f.Change(), f.Evidence())
}

// Details is what the text report writes under a regressed figure:
// its levels, and the cases that newly fail.
func (f Finding) Details() string {
	var lines []string
	if len(f.Levels) > 1 {
		lines = append(lines, levelsOf(f.Levels))
	}
	if len(f.Cases) > 0 {
		lines = append(lines, "newly failing: "+cases(f.Cases, 5))
	}
	return strings.Join(lines, "\n")
}

// VanishedLine is the report's line for a figure of BASE that NEW lacks.
func (r *Report) VanishedLine(f Finding) string {
	return fmt.Sprintf("VANISHED %s %s: in all %d runs of %s, in none of the %d of %s (a check that no longer runs? -allow-missing lets it pass)",
		f.Benchmark, f.Unit, f.N1, r.Base, f.N2, r.New)
}
