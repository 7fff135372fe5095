package gate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/recording"
)

// Planning: how many requests a side the gate needs to see a given change,
// read off a recorded run (its latencies, its drift between runs, its
// cases), for the shapes of change the MDEs assume (see power.go). The
// recording is compared with itself, so that the families have the sizes a
// comparison of two such recordings would give them.

// PlanLine is the answer for one scenario × endpoint.
type PlanLine struct {
	Group, Unit string
	// Have is the requests a side the recording has, Need those the
	// change needs to be flagged with 80% probability (0 when Never).
	Have, Need int
	// Power is the probability of flagging the change with Have.
	Power float64
	// Never says why no number of requests would do, or is "".
	Never string
	// As says how the change was modelled, when not as given.
	As string
}

// Plan answers, for each scenario × endpoint of base that has unit, how
// many requests a side the gate needs to flag a change of unit as large as
// change (Rel: relative, 0.10 for 10%; Abs: in the unit, points for a
// proportion). base must have samples.
func Plan(base recording.Source, unit string, change Tolerance, opts Options) ([]PlanLine, error) {
	opts, err := defaults(opts)
	if err != nil {
		return nil, err
	}
	rep := newReport(base.Name, base.Name, opts)
	_, groups, err := selfGroups(rep, base, opts)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: plan: %s", recording.ErrUnusable, strings.Join(rep.Warnings, "; "))
	}
	lat, qual, err := perRequest(rep, groups, judging{Options: opts, keepEmpty: true}, map[recording.Key]bool{})
	if err != nil {
		return nil, err
	}
	var out []PlanLine
	for _, f := range []*family{lat, qual} {
		z := inference.ZFirst(f.Alpha, len(f.tests))
		for _, t := range f.tests {
			if t.Unit != unit {
				continue
			}
			tol := toleranceFor(t.Unit, opts.Tolerance)
			var line PlanLine
			if t.tail != nil {
				line = planLatency(t.Finding, z, tol, change)
			} else {
				line = planProportion(t.Finding, t.better, z, tol, change)
			}
			line.Group, line.Unit = t.Benchmark, t.Unit
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		var props []string
		for _, f := range proportionFigs() {
			props = append(props, f.unit)
		}
		return nil, fmt.Errorf("%w: plan: no scenario of %s has %s judged on requests (units judged on requests: latency percentiles and %s)",
			recording.ErrUnusable, base.Name, unit, strings.Join(props, ", "))
	}
	return out, nil
}

// planLatency scales what the recording shows to n requests a side: the
// expected z grows as √n, the estimate's standard error shrinks as 1/√n.
func planLatency(f Finding, z float64, tol Tolerance, change Tolerance) PlanLine {
	t := f.tail
	have := f.N1
	rel := change.Rel
	if change.Abs > 0 && f.Old > 0 {
		rel = math.Max(rel, change.Abs/f.Old)
	}
	theta, tolTheta := math.Log1p(rel), tolLog(tol, f.Old)
	if theta <= tolTheta {
		return PlanLine{Have: have, Never: fmt.Sprintf("a change of %+.3g%% is within the tolerance (%s), which the gate never flags; lower it with -tolerance %s=…", 100*rel, tol, f.Unit)}
	}
	ez, se := t.ExpectedZ(theta), t.SELog()
	return planN(have, func(n float64) float64 { return inference.LatencyPower(ez, se, z, theta, tolTheta, n/float64(have)) })
}

// planProportion scales the model of the proportion's MDE to n requests a
// side: whole cases that start failing when the test is paired by case,
// else a failure probability raised on every request.
func planProportion(f Finding, better int, z float64, tol Tolerance, change Tolerance) PlanLine {
	have := f.N2
	pts := change.Abs
	if change.Rel > 0 {
		pts = math.Max(pts, change.Rel*f.Old)
	}
	tp := tolPoints(tol, f.Old)
	if pts <= tp {
		return PlanLine{Have: have, Never: fmt.Sprintf("a change of %.3g points is within the tolerance (%s), which the gate never flags; lower it with -tolerance %s=…", pts, tol, f.Unit)}
	}
	d, tp := pts/100, tp/100
	p0 := f.Old / 100
	if better > 0 {
		p0 = 1 - p0
	}
	if p0+d > 1 {
		return PlanLine{Have: have, Never: fmt.Sprintf("%s is at %.3g%%: it cannot move by %.3g points", f.Unit, f.Old, pts)}
	}
	var power func(n float64) float64
	var as string
	if r0, r1, cases := alwaysPassing(f); cases > 0 && f.Paired {
		// k whole cases of r1 requests each make the change.
		k := math.Max(1, math.Round(d*float64(f.N2)/r1))
		as = fmt.Sprintf("as %.0f whole case(s) of %.0f failing: %.3g points", k, float64(f.N2)/r1, 100*k*r1/float64(f.N2))
		power = func(n float64) float64 {
			s := n / float64(have)
			if r0*s < 1 || r1*s < 1 {
				return 0 // fewer requests than cases: not every case is asked
			}
			return inference.CasesFlagged(int(k), r0*s, r1*s, f.exact.Var*s, float64(f.N2)*s, z, tp)
		}
	} else {
		power = func(n float64) float64 { return inference.ProportionPower(p0, d, tp, n, n, z) }
	}
	line := planN(have, power)
	line.As = as
	return line
}

// planN finds the fewest requests a side with power(n) ≥ 80%, power
// increasing in n, up to ten million.
func planN(have int, power func(n float64) float64) PlanLine {
	line := PlanLine{Have: have, Power: power(float64(have))}
	const most = 1e7
	if power(most) < 0.8 {
		line.Never = "not even ten million requests a side would do: the change is too small for the noise"
		return line
	}
	lo, hi := 1.0, 1.0
	for power(hi) < 0.8 {
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		if power(mid) >= 0.8 {
			hi = mid
		} else {
			lo = mid
		}
	}
	line.Need = int(hi)
	return line
}

// WritePlan writes the answers of Plan for a person.
func WritePlan(w io.Writer, lines []PlanLine, change string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "to flag %s with 80%% probability (the shapes of change of docs/gate.md):\n", change)
	for _, l := range lines {
		switch {
		case l.Never != "":
			fmt.Fprintf(tw, "  %s\t%s\tnever: %s\n", l.Group, l.Unit, l.Never)
		default:
			as := ""
			if l.As != "" {
				as = "; " + l.As
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d requests a side\t(have %d: %.0f%% now%s)\n", l.Group, l.Unit, l.Need, l.Have, 100*l.Power, as)
		}
	}
	return tw.Flush()
}
