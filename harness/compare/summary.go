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
// worse or better; the rest follow in name order. It is descriptive, as
// Compare is: p is not corrected for the many lines; the gate decides.
// Benchmark names lose their -N GOMAXPROCS suffix, so that runs recorded
// on machines of different sizes line up.
func Summary(w io.Writer, opts Options, srcs ...recording.Source) error {
	opts = defaults(opts)
	opts.ignoreProcs = true
	units, cells, err := collect(opts, srcs)
	if err != nil {
		return err
	}
	byUnit := map[string]*table{}
	for _, t := range units {
		byUnit[t.unit] = t
	}
	type line struct {
		row, unit, col string
		old, new, p    float64
		n1, n2         int
		mark           string
		order          int
		percent        bool
	}
	var lines []line
	var cols []string
	constant := map[string]int{} // unit → lines not shown, equal everywhere
	for _, fig := range metric.Columns() {
		t := byUnit[fig.Unit()]
		if t == nil {
			continue
		}
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
					constant[t.unit]++
					continue
				}
				l := line{row: row.StringValues(), unit: t.unit, col: col.StringValues(),
					n1: len(base), n2: len(xs), order: len(lines), percent: fig.Kind == metric.Fraction}
				l.old, l.new, l.p = inference.MannWhitney(base, xs)
				if l.p < opts.Alpha && l.new != l.old {
					l.mark = "better"
					if (l.new > l.old) == fig.Lower {
						l.mark = "WORSE"
					}
				}
				lines = append(lines, l)
			}
		}
		if len(cols) == 0 {
			for _, c := range t.cols {
				cols = append(cols, c.StringValues())
			}
		}
	}
	if len(lines) == 0 && len(constant) == 0 {
		return fmt.Errorf("%w: no key figure (%s) in both the first column and another; llmsla compare -full shows every unit",
			recording.ErrUnusable, strings.Join(keyUnits(), ", "))
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if (a.mark != "") != (b.mark != "") {
			return a.mark != ""
		}
		if a.mark != "" && a.p != b.p {
			return a.p < b.p
		}
		return a.order < b.order
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s: medians over runs; p by Mann-Whitney, not corrected for the %d lines (the gate decides: llmsla gate); marked when p < %g\n",
		cols[0], strings.Join(cols[1:], ", "), len(lines), opts.Alpha)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for i, l := range lines {
		if i > 0 && l.mark == "" && lines[i-1].mark != "" {
			fmt.Fprintln(tw)
		}
		row := l.row
		if len(cols) > 2 {
			row += "  [" + l.col + "]"
		}
		d := "n/a"
		if l.old != 0 {
			d = fmt.Sprintf("%+.1f%%", 100*(l.new/l.old-1))
		}
		if l.percent {
			d = fmt.Sprintf("%+.1f pts", l.new-l.old)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s → %s\t%s\tp=%.3f\tn=%d+%d\t%s\n", row, l.unit, recording.Num(l.old), recording.Num(l.new), d, l.p, l.n1, l.n2, l.mark)
	}
	tw.Flush()
	if len(constant) > 0 {
		var parts []string
		for _, u := range keyUnits() {
			if n := constant[u]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s (%d)", u, n))
			}
		}
		fmt.Fprintf(&b, "not shown, the same in every run on both sides: %s\n", strings.Join(parts, ", "))
	}
	return writeTrimmed(w, b.String())
}

// keyUnits are the units Summary shows.
func keyUnits() []string {
	var out []string
	for _, f := range metric.Columns() {
		out = append(out, f.Unit())
	}
	return out
}
