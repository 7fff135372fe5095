package gate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteText writes r for a person reading CI logs: the verdict first, then
// one line per regressed or improved figure, counts, and warnings.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	verdict := "PASS"
	if r.Failed() {
		verdict = "FAIL"
	}
	vanished := ""
	if len(r.Vanished) > 0 {
		vanished = fmt.Sprintf(", %d vanished", len(r.Vanished))
	}
	fmt.Fprintf(&b, "gate %s: %s vs %s — %d regressed%s, %d improved, %d unchanged (%d comparisons, Holm–Bonferroni α=%g)\n",
		verdict, r.New, r.Base, len(r.Regressions), vanished, len(r.Improvements), r.Unchanged, r.Compared, r.Alpha)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, set := range []struct {
		label string
		fs    []Finding
	}{{"REGRESSED", r.Regressions}, {"improved", r.Improvements}} {
		for _, f := range set.fs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s → %s\t%s\t(p=%.3g n=%d+%d, tolerance %s)\n",
				set.label, f.Benchmark, f.Unit, num(f.Old), num(f.New), delta(f), f.PAdj, f.N1, f.N2, f.Tolerance)
		}
	}
	tw.Flush()
	for _, f := range r.Vanished {
		fmt.Fprintf(&b, "VANISHED   %s %s: in all %d runs of %s, in none of the %d of %s (a check that no longer runs? -allow-missing lets it pass)\n",
			f.Benchmark, f.Unit, f.N1, r.Base, f.N2, r.New)
	}
	for _, f := range r.NotJudged {
		fmt.Fprintf(&b, "not judged: %s %s: %d runs in %s, %d in %s, too few to be significant (the figure is missing from the others)\n",
			f.Benchmark, f.Unit, f.N1, r.Base, f.N2, r.New)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// delta shows the relative change, and for percentage units the change in
// points, which is what their tolerance is in.
func delta(f Finding) string {
	d := "n/a"
	if f.Old != 0 {
		d = fmt.Sprintf("%+.1f%%", f.DeltaPct())
	}
	if strings.HasSuffix(f.Unit, "%") {
		d += fmt.Sprintf(" (%+.1f pts)", f.New-f.Old)
	}
	return d
}

// num prints a median with about four significant digits, no exponent for
// everyday magnitudes.
func num(x float64) string {
	if x != 0 && (math.Abs(x) >= 1e7 || math.Abs(x) < 1e-3) {
		return fmt.Sprintf("%.4g", x)
	}
	s := fmt.Sprintf("%.4g", x)
	if strings.ContainsAny(s, "e") {
		return fmt.Sprintf("%.0f", x)
	}
	return s
}
