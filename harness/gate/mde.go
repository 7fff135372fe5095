package gate

import (
	"math"
	"slices"

	"github.com/llmsla/llmsla/harness/internal/inference"
)

// The minimal detectable effects of the per-request tests (see power.go
// for the shapes of change they assume), from the power calculations of
// package inference and the tolerances the gate holds a change to.

// latencyMDE solves, for a relative slowdown e^θ − 1 of every request,
// inference.LatencyPower = 80%.
func latencyMDE(f Finding, z float64, tol Tolerance) MDE {
	se := f.tail.SELog()
	at := func(tolTheta float64) func(theta float64) float64 {
		return func(theta float64) float64 {
			return inference.LatencyPower(f.tail.ExpectedZ(theta), se, z, theta, tolTheta, 1)
		}
	}
	return MDE{Unit: f.Unit, Relative: true,
		Change: math.Expm1(inference.Solve(at(tolLog(tol, f.Old)), math.Log(20))),
		Stat:   math.Expm1(inference.Solve(at(0), math.Log(20)))}
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
		return func(d float64) float64 { return inference.ProportionPower(p0, d, tp, n0, n1, z) }
	}
	return MDE{Unit: f.Unit, Change: 100 * inference.Solve(at(tp), 1-p0-1e-9), Stat: 100 * inference.Solve(at(0), 1-p0-1e-9)}
}

// casesMDE is the number of cases that must flip from always passing to
// always failing for the paired test to flag the change
// (inference.CasesFlagged).
func casesMDE(f Finding, z, tp float64) (MDE, bool) {
	r0, r1, cases := alwaysPassing(f)
	if cases == 0 {
		return MDE{}, false
	}
	flag, stat := math.Inf(1), math.Inf(1)
	for k := 1; k <= cases; k++ {
		if math.IsInf(stat, 1) && inference.CasesFlagged(k, r0, r1, f.exact.Var, float64(f.N2), z, 0) >= inference.Power {
			stat = float64(k)
		}
		if inference.CasesFlagged(k, r0, r1, f.exact.Var, float64(f.N2), z, tp) >= inference.Power {
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

// alwaysPassing returns the typical number of requests a side of the cases
// that passed every time on both sides, and how many there are.
func alwaysPassing(f Finding) (r0, r1 float64, cases int) {
	var n0, n1 []int
	for _, c := range f.caseCounts {
		if c.Bad1 == 0 && c.Bad2 == 0 {
			n0, n1 = append(n0, c.N1), append(n1, c.N2)
		}
	}
	if len(n0) == 0 {
		return 0, 0, 0
	}
	return float64(median(n0)), float64(median(n1)), len(n0)
}

func median(xs []int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
