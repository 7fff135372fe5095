package compare

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/recording"
)

// Summary writes one line per benchmark × key figure — the verdict
// table's columns (metric.Columns) — for each column after the first
// against the first: medians over runs, the change, the Mann-Whitney p and
// n. Lines whose p is below opts.Alpha come first, smallest p first, marked
// worse or better; the rest follow in name order. A line with too few runs
// for any p to reach opts.Alpha (fewer than 4 a side at 0.05) says so
// instead of a p. It is descriptive, as Tables is: p is not corrected for
// the many lines; the gate decides. Benchmark names lose their -N
// GOMAXPROCS suffix, so that runs recorded on machines of different sizes
// line up.
func Summary(w io.Writer, opts Options, srcs ...recording.Source) error {
	opts = defaults(opts)
	opts.ignoreProcs = true
	units, cells, err := collect(opts, srcs)
	if err != nil {
		return err
	}
	s := summarize(units, cells, opts.Alpha)
	if len(s.lines) == 0 && len(s.constant) == 0 {
		return fmt.Errorf("%w: no key figure (%s) in both the first column and another; llmsla compare -full shows every unit",
			recording.ErrUnusable, strings.Join(keyUnits(), ", "))
	}
	return writeTrimmed(w, s.text(opts.Alpha))
}

// summaryLine is one benchmark × figure × column against the first.
type summaryLine struct {
	row, unit, col string
	old, new, p    float64
	n1, n2         int
	// blind says no p could reach alpha with so few runs.
	blind   bool
	mark    string
	order   int
	percent bool
}

// summary is the lines of a Summary, the columns they compare, and per
// unit how many lines were the same everywhere, not shown.
type summary struct {
	lines    []summaryLine
	cols     []string
	constant map[string]int
}

// summarize compares every key figure's cells with the first column's and
// sorts the lines: marked ones first, smallest p first.
func summarize(units []*table, cells map[cellKey][]float64, alpha float64) summary {
	byUnit := map[string]*table{}
	for _, t := range units {
		byUnit[t.unit] = t
	}
	s := summary{constant: map[string]int{}}
	for _, fig := range metric.Columns() {
		t := byUnit[fig.Unit()]
		if t == nil {
			continue
		}
		s.add(t, fig, cells, alpha)
		if len(s.cols) == 0 {
			for _, c := range t.cols {
				s.cols = append(s.cols, c.StringValues())
			}
		}
	}
	sort.SliceStable(s.lines, func(i, j int) bool {
		a, b := s.lines[i], s.lines[j]
		if (a.mark != "") != (b.mark != "") {
			return a.mark != ""
		}
		if a.mark != "" && a.p != b.p {
			return a.p < b.p
		}
		return a.order < b.order
	})
	return s
}

// add compares the cells of t's rows, column by column, with the first.
func (s *summary) add(t *table, fig metric.Fig, cells map[cellKey][]float64, alpha float64) {
	for _, row := range t.rows {
		base, ok := cells[cellKey{t.unit, row, t.cols[0]}]
		if !ok {
			continue
		}
		for _, col := range t.cols[1:] {
			xs, ok := cells[cellKey{t.unit, row, col}]
			if !ok {
				continue
			}
			if inference.AllEqual(base, xs) {
				s.constant[t.unit]++
				continue
			}
			l := summaryLine{row: row.StringValues(), unit: t.unit, col: col.StringValues(),
				n1: len(base), n2: len(xs), order: len(s.lines), percent: fig.Kind == metric.Fraction}
			l.old, l.new, l.p = inference.MannWhitney(base, xs)
			l.blind = inference.MinP(l.n1, l.n2) > alpha
			if l.p < alpha && l.new != l.old {
				l.mark = "better"
				if (l.new > l.old) == fig.Lower {
					l.mark = "WORSE"
				}
			}
			s.lines = append(s.lines, l)
		}
	}
}

// text lays the summary out: a header, the lines, and notes on what was
// left out and what could not be significant.
func (s summary) text(alpha float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s: medians over runs; p by Mann-Whitney, not corrected for the %d lines (the gate decides: llmsla gate); marked when p < %g\n",
		s.cols[0], strings.Join(s.cols[1:], ", "), len(s.lines), alpha)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	blind := 0
	for i, l := range s.lines {
		if i > 0 && l.mark == "" && s.lines[i-1].mark != "" {
			fmt.Fprintln(tw)
		}
		row := l.row
		if len(s.cols) > 2 {
			row += "  [" + l.col + "]"
		}
		d := "n/a"
		if l.old != 0 {
			d = fmt.Sprintf("%+.1f%%", 100*(l.new/l.old-1))
		}
		if l.percent {
			d = fmt.Sprintf("%+.1f pts", l.new-l.old)
		}
		p := fmt.Sprintf("p=%.3f", l.p)
		if l.blind {
			p, blind = "p=–", blind+1
		}
		fmt.Fprintf(tw, "%s\t%s\t%s → %s\t%s\t%s\tn=%d+%d\t%s\n", row, l.unit, metric.Precise(l.old), metric.Precise(l.new), d, p, l.n1, l.n2, l.mark)
	}
	tw.Flush()
	if blind > 0 {
		need := inference.RunsNeeded(alpha)
		fmt.Fprintf(&b, "p=–: no significance is possible with so few runs (%d of the %d lines): Mann-Whitney's smallest p with n runs a side is 2/C(2n, n), above %g until %d runs a side; record at least %d with go test -count (llmsla bench -count)\n",
			blind, len(s.lines), alpha, need, need)
	}
	if len(s.constant) > 0 {
		var parts []string
		for _, u := range keyUnits() {
			if n := s.constant[u]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s (%d)", u, n))
			}
		}
		fmt.Fprintf(&b, "not shown, the same in every run on both sides: %s\n", strings.Join(parts, ", "))
	}
	return b.String()
}

// keyUnits are the units Summary shows.
func keyUnits() []string {
	var out []string
	for _, f := range metric.Columns() {
		out = append(out, f.Unit())
	}
	return out
}
