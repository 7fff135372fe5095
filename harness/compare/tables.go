package compare

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"

	"github.com/llmsla/llmsla/harness/recording"
)

// Options are benchstat's table flags. Empty fields take
// benchstat's defaults.
type Options struct {
	Col    string // columns, default ".file"
	Row    string // rows, default ".fullname"
	Filter string // benchfilter query, default "*"
	// Alpha is the per-cell significance level for "~", default 0.05.
	// The table is descriptive, as in benchstat: it is not corrected for
	// multiple comparisons; harness/gate is.
	Alpha float64

	ignoreProcs bool
}

type cellKey struct {
	unit     string
	row, col benchproc.Key
}

// table collects one unit's cells.
type table struct {
	unit       string
	rows, cols []benchproc.Key
	seenRow    map[benchproc.Key]bool
	seenCol    map[benchproc.Key]bool
}

// Compare writes a benchstat-style table of srcs to w, one table per unit:
// median ± 95% CI per cell, and for each column after the first the delta
// against the first with the U-test p and n.
func Tables(w io.Writer, opts Options, srcs ...recording.Source) error {
	opts = defaults(opts)
	units, cells, err := collect(opts, srcs)
	if err != nil {
		return err
	}
	thr := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	for i, t := range units {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := t.render(w, cells, thr); err != nil {
			return err
		}
	}
	return nil
}

// collect reads srcs into one table per unit, rows and columns as the
// options project them, sorted.
func collect(opts Options, srcs []recording.Source) ([]*table, map[cellKey][]float64, error) {
	filter, err := recording.ParseFilter(opts.Filter)
	if err != nil {
		return nil, nil, err
	}
	var parser benchproc.ProjectionParser
	if opts.ignoreProcs {
		// A key parsed first is left out of .fullname: rows then merge
		// benchmarks that differ only in their -N suffix.
		if _, err := parser.Parse("/gomaxprocs", filter); err != nil {
			return nil, nil, err
		}
	}
	rowBy, err := parser.Parse(opts.Row, filter)
	if err != nil {
		return nil, nil, fmt.Errorf("-row %q: %w", opts.Row, err)
	}
	colBy, err := parser.Parse(opts.Col, filter)
	if err != nil {
		return nil, nil, fmt.Errorf("-col %q: %w", opts.Col, err)
	}
	var units []*table
	byUnit := map[string]*table{}
	cells := map[cellKey][]float64{}
	_, err = recording.Read(srcs, filter, func(_ int, res *benchfmt.Result) {
		row, col := rowBy.Project(res), colBy.Project(res)
		for _, v := range res.Values {
			u := recording.UnitOf(v)
			t := byUnit[u]
			if t == nil {
				t = &table{unit: u, seenRow: map[benchproc.Key]bool{}, seenCol: map[benchproc.Key]bool{}}
				byUnit[u] = t
				units = append(units, t)
			}
			if !t.seenRow[row] {
				t.seenRow[row] = true
				t.rows = append(t.rows, row)
			}
			if !t.seenCol[col] {
				t.seenCol[col] = true
				t.cols = append(t.cols, col)
			}
			k := cellKey{u, row, col}
			cells[k] = append(cells[k], recording.ValueOf(v))
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if len(units) == 0 {
		return nil, nil, fmt.Errorf("%w: no benchmark results match -filter %q", recording.ErrUnusable, opts.Filter)
	}
	for _, t := range units {
		benchproc.SortKeys(t.rows)
		benchproc.SortKeys(t.cols)
	}
	return units, cells, nil
}

func defaults(o Options) Options {
	if o.Col == "" {
		o.Col = ".file"
	}
	if o.Row == "" {
		o.Row = ".fullname"
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	return o
}

// render lays the table out as benchstat does: a header of column keys and
// the unit, then per row "center ± ci" for each column and, after the
// first, "delta (p=… n=…)". Warnings become numbered footnotes.
func (t *table) render(w io.Writer, cells map[cellKey][]float64, thr *benchmath.Thresholds) error {
	var notes []string
	note := func(errs []error) string {
		var marks []string
		for _, e := range errs {
			marks = append(marks, superscript(len(notes)+1))
			notes = append(notes, e.Error())
		}
		return strings.Join(marks, " ")
	}
	grid := [][]string{}
	for _, row := range t.rows {
		line := []string{row.StringValues()}
		var vals []float64
		sums := make([]*benchmath.Summary, len(t.cols))
		samples := make([]*benchmath.Sample, len(t.cols))
		for i, col := range t.cols {
			xs, ok := cells[cellKey{t.unit, row, col}]
			if !ok {
				continue
			}
			samples[i] = benchmath.NewSample(append([]float64(nil), xs...), thr)
			s := benchmath.AssumeNothing.Summary(samples[i], 0.95)
			sums[i] = &s
			vals = append(vals, s.Center)
		}
		scale := benchunit.CommonScale(vals, benchunit.ClassOf(t.unit))
		for i := range t.cols {
			cellsFor := 2
			if i > 0 {
				cellsFor = 4
			}
			if sums[i] == nil {
				line = append(line, make([]string, cellsFor)...)
				continue
			}
			line = append(line, scale.Format(sums[i].Center), strings.TrimSpace(sums[i].PctRangeString()+" "+note(sums[i].Warnings)))
			if i == 0 {
				continue
			}
			if sums[0] == nil {
				line = append(line, "", "")
				continue
			}
			c := benchmath.AssumeNothing.Compare(samples[0], samples[i])
			line = append(line, c.FormatDelta(sums[0].Center, sums[i].Center), strings.TrimSpace("("+c.String()+") "+note(c.Warnings)))
		}
		grid = append(grid, line)
	}
	if err := t.write(w, grid); err != nil {
		return err
	}
	for i, n := range notes {
		if _, err := fmt.Fprintf(w, "%s %s\n", superscript(i+1), n); err != nil {
			return err
		}
	}
	return nil
}

// write pads grid into aligned columns under a two-line header.
func (t *table) write(w io.Writer, grid [][]string) error {
	width, logical := t.widths(grid)
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", width[0]))
	for i, col := range t.cols {
		b.WriteString(" │ " + center(col.StringValues(), logical[i]))
	}
	b.WriteString(" │\n" + strings.Repeat(" ", width[0]))
	for i := range t.cols {
		sub := center(t.unit, width[cellStart(i)]+3+width[cellStart(i)+1])
		if i > 0 {
			sub += "  " + pad("vs base", logical[i]-utf8.RuneCountInString(sub)-2, false)
		}
		b.WriteString(" │ " + sub)
	}
	b.WriteString(" │\n")
	for _, line := range grid {
		b.WriteString(pad(line[0], width[0], false))
		for i := range t.cols {
			s := cellStart(i)
			b.WriteString("   " + pad(line[s], width[s], true))
			sep := " ± "
			if line[s] == "" {
				sep = "   "
			}
			b.WriteString(sep + pad(line[s+1], width[s+1], true))
			if i > 0 {
				b.WriteString("  " + pad(line[s+2], width[s+2], true) + " " + pad(line[s+3], width[s+3], false))
			}
		}
		b.WriteString("\n")
	}
	return writeTrimmed(w, b.String())
}

// cellStart is the first physical cell of logical column i: the row name,
// then two cells (center, ± range) for the first column and four (center,
// range, delta, p) for each one after.
func cellStart(i int) int {
	if i == 0 {
		return 1
	}
	return 3 + 4*(i-1)
}

// widths returns the width of every physical cell of grid and of every
// logical column: as wide as its cells and separators, or its header.
func (t *table) widths(grid [][]string) (width, logical []int) {
	width = make([]int, 1+2+4*(len(t.cols)-1))
	for _, line := range grid {
		for i, s := range line {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	logical = make([]int, len(t.cols))
	for i, col := range t.cols {
		l := width[cellStart(i)] + 3 + width[cellStart(i)+1]
		if i > 0 {
			l += 2 + width[cellStart(i)+2] + 1 + width[cellStart(i)+3]
		}
		head := utf8.RuneCountInString(col.StringValues())
		sub := utf8.RuneCountInString(t.unit)
		if i > 0 {
			sub += 2 + len("vs base")
		}
		if need := max(head, sub); need > l {
			// Widen the first cell, which is right-aligned.
			width[cellStart(i)] += need - l
			l = need
		}
		logical[i] = l
	}
	return width, logical
}

// writeTrimmed writes s to w without the spaces that end its lines, which
// padded columns leave.
func writeTrimmed(w io.Writer, s string) error {
	for _, l := range strings.SplitAfter(s, "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(l, " \n")+strings.Repeat("\n", strings.Count(l, "\n"))); err != nil {
			return err
		}
	}
	return nil
}

func pad(s string, w int, right bool) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

func center(s string, w int) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	return strings.Repeat(" ", n/2) + s + strings.Repeat(" ", n-n/2)
}

var superDigits = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

func superscript(i int) string {
	var out []rune
	for ; i > 0; i /= 10 {
		out = append([]rune{superDigits[i%10]}, out...)
	}
	return string(out)
}
