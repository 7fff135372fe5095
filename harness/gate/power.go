package gate

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/inference"
)

// What the gate can see. METRICS.md defines the minimal detectable effect
// (MDE) as the smallest change the gate flags with 80% probability at its
// α for the sample sizes at hand. A test flags a change when it clears
// Holm's bar — for a lone change among unchanged figures, the first step,
// p ≤ α/m for a family of m one-sided tests (zFirst) — and when the
// estimated change exceeds the tolerance; the MDE accounts for both, and
// Stat is the MDE of the statistics alone, to show when the tolerance is
// what limits.
//
// The answer depends on the shape of the change, so each kind of figure
// states the one it assumes:
//
//   - a latency percentile: every request of the scenario slower by the
//     same factor, at every level (a tail regression that leaves the
//     median alone is seen about as well, in the percentile it moves);
//   - a quality proportion paired by case: whole cases that passed every
//     time on the base failing every time on the new side, as when a model
//     update breaks particular questions (Cases says how many);
//   - any other proportion: every request's failure probability up by the
//     same amount.
//
// The noise is the data's own: pooled latencies, the drift between runs,
// the cases that sometimes pass and sometimes fail.

// Sensitivity is what the per-request tests of one scenario × endpoint can
// see at these sample sizes.
type Sensitivity struct {
	Group    string
	Requests [2]int // of the latency figures, per side
	MDE      []MDE
}

// MDE is one figure's minimal detectable effect, toward worse.
type MDE struct {
	Unit string
	// Change is relative for a latency (0.12: +12%), in points for a
	// proportion; +Inf when no change the data allow would be flagged.
	Change, Stat float64
	Relative     bool
	// Cases is, for a quality test paired by case, how many cases must
	// start failing.
	Cases int
}

// String is the MDE as a report shows it: "+12% (5.1)", the change the
// tests alone resolve in parentheses when the tolerance is what limits;
// "2.5 pts (1 case)"; "n/a" when no change reaches 80% power.
func (m MDE) String() string {
	if math.IsInf(m.Change, 1) {
		return "n/a"
	}
	if m.Relative {
		s := fmt.Sprintf("+%.3g%%", 100*m.Change)
		if m.Stat < 0.8*m.Change {
			s += fmt.Sprintf(" (%.2g)", 100*m.Stat)
		}
		return s
	}
	s := fmt.Sprintf("%.3g pts", m.Change)
	if m.Cases > 0 {
		s += fmt.Sprintf(" (%d case", m.Cases)
		if m.Cases > 1 {
			s += "s"
		}
		s += ")"
	}
	return s
}

// sensitivity computes the MDE of every per-request test of fams.
func sensitivity(fams []*family, opts Options) []Sensitivity {
	var out []Sensitivity
	at := map[string]int{}
	for _, f := range fams {
		z := inference.ZFirst(f.Alpha, f.Tests)
		for _, t := range f.tests {
			var m MDE
			switch {
			case t.tail != nil:
				m = latencyMDE(t.Finding, z, toleranceFor(t.Unit, opts.Tolerance))
			case t.exact != nil:
				m = proportionMDE(t.Finding, t.better, z, toleranceFor(t.Unit, opts.Tolerance))
			default:
				continue
			}
			i, ok := at[t.Benchmark]
			if !ok {
				i = len(out)
				at[t.Benchmark] = i
				out = append(out, Sensitivity{Group: t.Benchmark})
			}
			if t.tail != nil && out[i].Requests == [2]int{} {
				out[i].Requests = [2]int{t.N1, t.N2}
			}
			out[i].MDE = append(out[i].MDE, m)
		}
	}
	return out
}

// writeSensitivity writes the MDE table: one line per scenario × endpoint,
// one column per figure.
func writeSensitivity(b *strings.Builder, ss []Sensitivity) {
	if len(ss) == 0 {
		return
	}
	var units []string
	seen := map[string]bool{}
	for _, s := range ss {
		for _, m := range s.MDE {
			if !seen[m.Unit] {
				seen[m.Unit] = true
				units = append(units, m.Unit)
			}
		}
	}
	rows := [][]string{append([]string{"", "requests"}, units...)}
	for _, s := range ss {
		row := []string{s.Group, fmt.Sprintf("%d+%d", s.Requests[0], s.Requests[1])}
		for _, u := range units {
			cell := "–"
			for _, m := range s.MDE {
				if m.Unit == u {
					cell = m.String()
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(b, "can see (minimal detectable effect at %.0f%% power, toward worse; in parentheses what the tests alone resolve, when the tolerance limits; shapes of change in docs/gate.md):\n", 100*inference.Power)
	writeColumns(b, rows, "  ")
}

// writeColumns lays rows out in left-aligned columns.
func writeColumns(b *strings.Builder, rows [][]string, indent string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		line := indent
		for i, c := range r {
			line += c + strings.Repeat(" ", width[i]-len([]rune(c))+2)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}
