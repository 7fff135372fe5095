package gate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/provenance"
)

// Finding is one figure under test: a (benchmark, unit) judged over runs,
// or a (scenario × endpoint, unit) judged over requests.
type Finding struct {
	Benchmark, Unit string
	// Family is the correction the test belongs to (FamilyLatency, …).
	Family string
	// Old and New are the figure on each side: medians over runs; for a
	// latency over requests, the levels' percentiles averaged with the
	// test's weights; for a proportion, its rate over requests.
	Old, New float64
	// P is the raw p-value, PAdj the Holm-adjusted one that was compared
	// with α.
	P, PAdj float64
	// N1 and N2 are the runs on each side, or the requests when Requests.
	N1, N2   int
	Requests bool
	// Tolerance is the one the change was held to.
	Tolerance Tolerance

	// Levels are a latency's percentiles level by level.
	Levels []LevelChange
	// Deff is the drift correction of a latency test: the variance
	// factor between runs measured on the data (1: none seen).
	Deff float64
	// Paired says a quality test paired requests by fixture case; Cases
	// are then the cases that never failed on the base and failed on the
	// new side.
	Paired bool
	Cases  []CaseChange

	tail       *inference.TailTest
	exact      *inference.Exact
	caseCounts []CaseChange
}

// DeltaPct is the relative change in percent.
func (f Finding) DeltaPct() float64 { return pct(f.Old, f.New) }

// pct is the change from old to new in percent of old.
func pct(old, new float64) float64 {
	return (new/old - 1) * 100
}

// Report is the outcome of Gate.
type Report struct {
	Base, New string
	// Alpha is the runs family's level, which the checks of run counts
	// use; Families holds every family's.
	Alpha float64
	// Compared is the number of tests, over all families.
	Compared int
	// Families are the corrections, in the order the report lists them.
	Families     []Family
	Regressions  []Finding
	Improvements []Finding
	// Unchanged counts figures that were neither, Constant those of them
	// that were the same everywhere (every run, or every request) and so
	// were not tested: no labels could make them significant.
	Unchanged, Constant int
	// NotJudged are figures in both files with too few runs on a side
	// (the figure is missing from some runs) for the test to decide.
	NotJudged []Finding
	// Vanished are figures a benchmark reported in every base run and in
	// no new run: a check that no longer runs, or a figure no answer
	// gives any more. They fail the gate unless Options.AllowMissing.
	Vanished []Finding
	// Blind are the latency percentiles judged on requests that no
	// change, however large, would be flagged on with 80% probability at
	// these sample sizes (their minimal detectable effect is n/a): the
	// gate could not judge them, and does not pass (Verdict). BlindAllowed
	// are those Options.AllowBlind lets pass, and BlindUnbound those no
	// objective bounds (Options.Objective), still named.
	Blind, BlindAllowed, BlindUnbound []Finding
	// Sensitivity is what the per-request tests can see at these sample
	// sizes, per scenario × endpoint.
	Sensitivity []Sensitivity
	// Warnings are caveats that did not stop the decision; Notes say how
	// figures were judged where that is not the usual way.
	Warnings []string
	Notes    []string
	// Provenance is what comparing the sides' provenance found.
	Provenance provenance.Check
	// Added is the TTFT the candidate adds to the base's, pair for pair,
	// of an interleaved A/B run (GateRequests with AcrossEndpoints).
	Added []Added
}

// Failed reports whether any figure regressed or vanished. A report that
// has not failed may still not pass: see Verdict.
func (r *Report) Failed() bool { return len(r.Regressions) > 0 || len(r.Vanished) > 0 }

// WriteText writes r for a person reading CI logs: the verdict first, what
// each family of tests covers, one line per regressed or improved figure
// (with its levels, or the cases that newly fail), what the gate can see,
// and the caveats.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	r.Provenance.WriteHead(&b)
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
		fmt.Fprintf(&b, "  %-8s α=%-4.2g %3d tests: %s\n", f.Name, f.Alpha, f.Tests, covers)
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, set := range []struct {
		label string
		fs    []Finding
	}{{"REGRESSED", r.Regressions}, {"improved", r.Improvements}} {
		for _, f := range set.fs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s → %s\t%s\t(%s)\n",
				set.label, f.Family, f.Benchmark, f.Unit, metric.Precise(f.Old), metric.Precise(f.New), f.Change(), f.Evidence())
			if len(f.Levels) > 1 {
				fmt.Fprintf(tw, "\t\t\t\t%s\n", levelsOf(f.Levels))
			}
			if len(f.Cases) > 0 && set.label == "REGRESSED" {
				fmt.Fprintf(tw, "\t\t\t\tnewly failing: %s\n", cases(f.Cases, 5))
			}
		}
	}
	tw.Flush()
	writeAdded(&b, r.Base, r.New, r.Added)
	for _, f := range r.Vanished {
		fmt.Fprintf(&b, "VANISHED   %s %s: in all %d runs of %s, in none of the %d of %s (a check that no longer runs? -allow-missing lets it pass)\n",
			f.Benchmark, f.Unit, f.N1, r.Base, f.N2, r.New)
	}
	writeSensitivity(&b, r.Sensitivity)
	for _, f := range r.NotJudged {
		fmt.Fprintf(&b, "not judged: %s %s: %d runs in %s, %d in %s, too few to be significant (the figure is missing from the others)\n",
			f.Benchmark, f.Unit, f.N1, r.Base, f.N2, r.New)
	}
	r.Provenance.WriteTail(&b)
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

// Evidence is a finding's evidence: p, n, how the test was made,
// tolerance.
func (f Finding) Evidence() string {
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
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (%d/%d → %d/%d failed)", c.Case, c.Bad1, c.N1, c.Bad2, c.N2)
	}
	return firstOf(parts, n)
}

// firstOf joins at most n of parts, and says how many more there are.
func firstOf(parts []string, n int) string {
	if len(parts) > n {
		parts = append(parts[:n:n], fmt.Sprintf("and %d more", len(parts)-n))
	}
	return strings.Join(parts, ", ")
}

// Change shows the relative change, and for percentage units the change
// in points, which is what their tolerance is in.
func (f Finding) Change() string {
	d := "n/a"
	if f.Old != 0 {
		d = fmt.Sprintf("%+.1f%%", f.DeltaPct())
	}
	if strings.HasSuffix(f.Unit, "%") {
		d += fmt.Sprintf(" (%+.1f pts)", f.New-f.Old)
	}
	return d
}
