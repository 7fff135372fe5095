package gate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llmsla/llmsla/harness/recording"
)

// WriteText writes r for a person reading CI logs: the verdict first, what
// each family of tests covers, one line per regressed or improved figure
// (with its levels, or the cases that newly fail), what the gate can see,
// and the caveats.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	vanished := ""
	if len(r.Vanished) > 0 {
		vanished = fmt.Sprintf(", %d vanished", len(r.Vanished))
	}
	constant := ""
	if r.Constant > 0 {
		constant = fmt.Sprintf(", %d the same everywhere", r.Constant)
	}
	fmt.Fprintf(&b, "gate %s: %s vs %s — %d regressed%s, %d improved, %d unchanged (%d tested%s; Holm–Bonferroni within each family)%s\n",
		r.Verdict(), r.New, r.Base, len(r.Regressions), vanished, len(r.Improvements), r.Unchanged, r.Compared, constant, r.blindNote())
	for _, f := range r.Families {
		covers := f.Covers
		if f.Tests == 0 {
			covers = noTests[f.Name]
		}
		fmt.Fprintf(&b, "  %-8s α=%-4g %3d tests: %s\n", f.Name, f.Alpha, f.Tests, covers)
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, set := range []struct {
		label string
		fs    []Finding
	}{{"REGRESSED", r.Regressions}, {"improved", r.Improvements}} {
		for _, f := range set.fs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s → %s\t%s\t(%s)\n",
				set.label, f.Family, f.Benchmark, f.Unit, recording.Num(f.Old), recording.Num(f.New), delta(f), detail(f))
			if len(f.Levels) > 1 {
				fmt.Fprintf(tw, "\t\t\t\t%s\n", levelsOf(f.Levels))
			}
			if len(f.Cases) > 0 && set.label == "REGRESSED" {
				fmt.Fprintf(tw, "\t\t\t\tnewly failing: %s\n", cases(f.Cases, 5))
			}
		}
	}
	tw.Flush()
	for _, f := range r.Vanished {
		fmt.Fprintf(&b, "VANISHED   %s %s: in all %d runs of %s, in none of the %d of %s (a check that no longer runs? -allow-missing lets it pass)\n",
			f.Benchmark, f.Unit, f.N1, r.Base, f.N2, r.New)
	}
	writeSensitivity(&b, r.Sensitivity)
	for _, f := range r.NotJudged {
		fmt.Fprintf(&b, "not judged: %s %s: %d runs in %s, %d in %s, too few to be significant (the figure is missing from the others)\n",
			f.Benchmark, f.Unit, f.N1, r.Base, f.N2, r.New)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// noTests says why a family can be empty.
var noTests = map[string]string{
	FamilyLatency: "none on requests: every latency was the same on both sides, no request succeeded on both, or it is judged over runs (the warnings say which)",
	FamilyQuality: "none: every request had the same outcome on both sides, or none was checked",
	FamilyRuns:    "none: every figure was the same in every run, or its direction is unknown (the warnings say which)",
}

// detail is a finding's evidence: p, n, how the test was made, tolerance.
func detail(f Finding) string {
	what := "runs"
	if f.Requests {
		what = "requests"
	}
	s := fmt.Sprintf("p=%.3g n=%d+%d %s", f.PAdj, f.N1, f.N2, what)
	if f.Deff > 1.005 {
		s += fmt.Sprintf(", drift ×%.2g", f.Deff)
	}
	if f.Paired {
		s += ", paired by case"
	}
	return s + ", tolerance " + f.Tolerance.String()
}

// cases lists at most n cases as "id (0/17 → 12/17)".
func cases(cs []CaseChange, n int) string {
	var parts []string
	for i, c := range cs {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d/%d → %d/%d failed)", c.Case, c.Bad1, c.N1, c.Bad2, c.N2))
	}
	return strings.Join(parts, ", ")
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
