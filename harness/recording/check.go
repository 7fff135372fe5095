package recording

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/metric"
)

// The checks below reject input that benchfmt reads without complaint but
// from which no honest decision follows. Each names the file and line.

// tail wraps a reader to learn how the input ended: how many lines it
// had and whether the last one was finished by a newline. A file cut by
// `head -c` or an interrupted copy ends mid-line, and its last value may
// still parse ("24.3" cut to "24"), so a missing newline is corruption
// whatever benchfmt makes of the line.
type tail struct {
	r     io.Reader
	lines int
	last  byte
	any   bool
}

func (t *tail) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.lines += strings.Count(string(p[:n]), "\n")
		t.last, t.any = p[n-1], true
	}
	return n, err
}

// cut returns the error for an input whose last line is unfinished.
func (t *tail) cut(name string) string {
	if !t.any || t.last == '\n' {
		return ""
	}
	return fmt.Sprintf("%s:%d: the last line has no newline: the file was cut short (an interrupted run or copy); re-record it", name, t.lines+1)
}

// checkValues returns what makes res's values unusable: NaN or an infinity
// in any unit (benchmath sorts and ranks values, and a NaN makes it loop),
// a negative latency, rate or percentage, and a percentage above 100.
func checkValues(res *benchfmt.Result) []string {
	var bad []string
	file, line := res.Pos()
	for _, v := range res.Values {
		x, unit := ValueOf(v), UnitOf(v)
		var why string
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			why = "is not a number"
		case x < 0 && nonNegative(unit):
			why = "is negative"
		case x > 100 && fraction(unit):
			why = "is above 100"
		}
		if why != "" {
			bad = append(bad, fmt.Sprintf("%s:%d: %s %s %s %s; a broken measurement cannot be compared: fix the benchmark and re-record",
				file, line, res.Name, strconv.FormatFloat(x, 'g', -1, 64), unit, why))
		}
	}
	return bad
}

// nonNegative reports whether unit cannot hold a negative value: as the
// metric table says for its units (a drift or a fit's intercept can be),
// else a duration, a rate or a percentage in the project's naming.
func nonNegative(unit string) bool {
	if f, ok := metric.ByUnit(unit); ok {
		return !f.Signed
	}
	return strings.HasSuffix(unit, "-ms") || strings.HasSuffix(unit, "/s") || strings.HasSuffix(unit, "-%") ||
		unit == "ns/op" || unit == "sec/op"
}

// fraction reports whether unit is a percentage of a whole (at most 100):
// the table's fractions, else a *-% unit that is not a change.
func fraction(unit string) bool {
	if f, ok := metric.ByUnit(unit); ok {
		return f.Kind == metric.Fraction
	}
	return strings.HasSuffix(unit, "-%")
}

// repeats finds run sets recorded twice in one file: `cat f f > g`, or a
// results file appended to instead of rewritten. The runs would count
// twice, and twice the runs make any difference look significant.
//
// Real runs of a benchmark never repeat value for value once their values
// vary, but a benchmark whose figures are constant (err-% at 0) repeats
// legitimately. So a file is said to hold a run set twice when some
// benchmark's sequence of lines is periodic — from some line on it starts
// over, line for line and with the same configuration — and one period
// holds at least two different lines.
type repeats struct {
	seqs  map[string][]recLine
	order []string
}

type recLine struct {
	key  string
	line int
}

func (r *repeats) add(res *benchfmt.Result) {
	if r.seqs == nil {
		r.seqs = map[string][]recLine{}
	}
	name := res.Name.String()
	if _, ok := r.seqs[name]; !ok {
		r.order = append(r.order, name)
	}
	var b strings.Builder
	for _, c := range res.Config {
		fmt.Fprintf(&b, "%s=%s\x00", c.Key, c.Value)
	}
	fmt.Fprintf(&b, "%d", res.Iters)
	for _, v := range res.Values {
		fmt.Fprintf(&b, " %v %s", ValueOf(v), UnitOf(v))
	}
	_, line := res.Pos()
	r.seqs[name] = append(r.seqs[name], recLine{b.String(), line})
}

// errors lists, per benchmark that repeats, where the repetition starts.
func (r *repeats) errors(file string) []string {
	var bad []string
	for _, name := range r.order {
		seq := r.seqs[name]
		if p := period(seq); p > 0 {
			bad = append(bad, fmt.Sprintf("%s:%d: %s repeats from here the %d runs that start at line %d, value for value with the same configuration: the file holds the same runs twice (concatenated with itself?), which would double n; keep one copy",
				file, seq[p].line, name, p, seq[0].line))
		}
	}
	return bad
}

// period returns the smallest p > 0 such that seq[i] == seq[i-p] for every
// i ≥ p and seq[:p] holds two different lines, or 0.
func period(seq []recLine) int {
	for p := 1; p < len(seq); p++ {
		if seq[p].key != seq[0].key {
			continue
		}
		varied := false
		for i := 1; i < p; i++ {
			if seq[i].key != seq[0].key {
				varied = true
				break
			}
		}
		if !varied {
			continue
		}
		same := true
		for i := p; i < len(seq); i++ {
			if seq[i].key != seq[i-p].key {
				same = false
				break
			}
		}
		if same {
			return p
		}
	}
	return 0
}
