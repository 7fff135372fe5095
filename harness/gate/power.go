package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// What the gate can see. METRICS.md defines the minimal detectable effect
// (MDE) as the smallest change the gate flags with 80% probability at its
// α for the sample sizes at hand. A test flags a change when it clears
// Holm's bar — for a lone change among unchanged figures, the first step,
// α/m two-sided for a family of m tests — and when the estimated change
// exceeds the tolerance; the MDE accounts for both, and Stat is the MDE of
// the statistics alone, to show when the tolerance is what limits.
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

// power is the probability the MDEs are computed for.
const power = 0.8

var zPower = normQuantile(power)

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
	if opts.noSensitivity {
		return nil
	}
	var out []Sensitivity
	at := map[string]int{}
	for _, f := range fams {
		z := zFirst(f.Alpha, f.Tests)
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

// latencyMDE solves, for a relative slowdown e^θ − 1 of every request,
// P(flag) = P(test clears z) · P(estimate beyond the tolerance) = 80%.
func latencyMDE(f Finding, z float64, tol Tolerance) MDE {
	t := f.tail
	se := t.seLog(f.pct)
	tolTheta := tolLog(tol, f.Old)
	at := func(tolTheta float64) func(theta float64) float64 {
		return func(theta float64) float64 {
			p := normCDF(t.expectedZ(theta) - z)
			if tolTheta > 0 {
				p *= normCDF((theta - tolTheta) / se)
			}
			return p
		}
	}
	return MDE{Unit: f.Unit, Relative: true,
		Change: math.Expm1(solve(at(tolTheta), math.Log(20))),
		Stat:   math.Expm1(solve(at(0), math.Log(20)))}
}

// tolLog is the tolerance as a log ratio of the base value old.
func tolLog(tol Tolerance, old float64) float64 {
	r := tol.Rel
	if tol.Abs > 0 && old > 0 {
		r = math.Max(r, tol.Abs/old)
	}
	return math.Log1p(r)
}

// tolPoints is the tolerance of a proportion in points around old.
func tolPoints(tol Tolerance, old float64) float64 {
	return math.Max(tol.Abs, tol.Rel*math.Abs(old))
}

// proportionMDE is the MDE of an exact test: by whole cases when it was
// paired by case and some cases passed every time on both sides, else for
// a failure probability raised on every request.
func proportionMDE(f Finding, better int, z float64, tol Tolerance) MDE {
	p0 := f.Old / 100 // failure rate of the base
	if better > 0 {
		p0 = 1 - p0
	}
	tp := tolPoints(tol, f.Old) / 100
	if f.Paired {
		if m, ok := casesMDE(f, z, tp); ok {
			return m
		}
	}
	n0, n1 := float64(f.N1), float64(f.N2)
	at := func(tp float64) func(d float64) float64 {
		return func(d float64) float64 {
			pbar := p0 + d*n1/(n0+n1)
			p := normCDF(d/math.Sqrt(pbar*(1-pbar)*(1/n0+1/n1)) - z)
			if tp > 0 {
				se := math.Sqrt(p0*(1-p0)/n0 + (p0+d)*(1-p0-d)/n1)
				p *= normCDF((d - tp) / se)
			}
			return p
		}
	}
	return MDE{Unit: f.Unit, Change: 100 * solve(at(tp), 1-p0-1e-9), Stat: 100 * solve(at(0), 1-p0-1e-9)}
}

// casesMDE is the number of cases that must flip from always passing to
// always failing for the paired test to flag the change: each such case,
// asked r0 and r1 times, moves the statistic by r0·r1/(r0+r1) against the
// noise of the cases that vary on their own (the test's variance under no
// change).
func casesMDE(f Finding, z, tp float64) (MDE, bool) {
	var r0s, r1s []int
	for _, c := range f.caseCounts {
		if c.Bad1 == 0 && c.Bad2 == 0 {
			r0s, r1s = append(r0s, c.N1), append(r1s, c.N2)
		}
	}
	if len(r0s) == 0 {
		return MDE{}, false
	}
	r0, r1 := float64(median(r0s)), float64(median(r1s))
	vNoise := f.exact.Var
	flag, stat := math.Inf(1), math.Inf(1)
	for k := 1; k <= len(r0s); k++ {
		p := casesPower(k, r0, r1, vNoise, z)
		drop := float64(k) * r1 / float64(f.N2)
		if math.IsInf(stat, 1) && p >= power {
			stat = float64(k)
		}
		se := math.Sqrt(vNoise) / float64(f.N2)
		if tp > 0 {
			p *= normCDF((drop - tp) / math.Max(se, 1e-9))
		}
		if p >= power {
			flag = float64(k)
			break
		}
	}
	pts := func(k float64) float64 { return 100 * k * r1 / float64(f.N2) }
	m := MDE{Unit: f.Unit, Change: pts(flag), Stat: pts(stat)}
	if !math.IsInf(flag, 1) {
		m.Cases = int(flag)
	}
	return m, true
}

// casesPower is the power of the paired test when k cases asked r0 and r1
// times flip, over noise of variance vNoise.
func casesPower(k int, r0, r1, vNoise, z float64) float64 {
	n := r0 + r1
	mu := r0 * r1 / n
	v := r0 * r1 * r1 * r0 / (n * n * (n - 1))
	kf := float64(k)
	return normCDF(kf*mu/math.Sqrt(vNoise+kf*v) - z)
}

func median(xs []int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// solve returns the smallest x in (0, hi] with p(x) ≥ power, for p
// increasing in x, or +Inf when p(hi) < power.
func solve(p func(float64) float64, hi float64) float64 {
	if !(hi > 0) || p(hi) < power {
		return math.Inf(1)
	}
	lo := 0.0
	for range 40 {
		mid := (lo + hi) / 2
		if p(mid) >= power {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
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
	fmt.Fprintf(b, "can see (minimal detectable effect at %.0f%% power, toward worse; in parentheses what the tests alone resolve, when the tolerance limits; shapes of change in docs/gate.md):\n", 100*power)
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

// warnBlind warns of the per-request tests that no change flags with 80%
// probability at these sample sizes: judged, but nearly blind, which must
// be said.
func warnBlind(rep *Report) {
	var blind []string
	for _, s := range rep.Sensitivity {
		for _, m := range s.MDE {
			if math.IsInf(m.Change, 1) {
				blind = append(blind, s.Group+" "+m.Unit)
			}
		}
	}
	if len(blind) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: no change, however large, is flagged with %.0f%% probability at these sample sizes (the rank tests saturate, and drift widens them): record more requests or runs (llmsla bench or ab: -n, -count)",
			strings.Join(blind, ", "), 100*power))
	}
}
