package gate

import (
	"math"
	"slices"
	"sort"

	"github.com/llmsla/llmsla/harness/stats"
)

// The minimal detectable effects of the per-request tests (see power.go
// for the shapes of change they assume) and what they are computed from.

// latencyMDE solves, for a relative slowdown e^θ − 1 of every request,
// latencyPower = 80%.
func latencyMDE(f Finding, z float64, tol Tolerance) MDE {
	se := f.tail.seLog(f.pct)
	at := func(tolTheta float64) func(theta float64) float64 {
		return func(theta float64) float64 { return latencyPower(f.tail.expectedZ(theta), se, z, theta, tolTheta, 1) }
	}
	return MDE{Unit: f.Unit, Relative: true,
		Change: math.Expm1(solve(at(tolLog(tol, f.Old)), math.Log(20))),
		Stat:   math.Expm1(solve(at(0), math.Log(20)))}
}

// latencyPower is the probability of flagging a slowdown e^θ − 1 of every
// request with s times the requests a side: the test, of expected z ez
// and estimate of standard error se, clears z0, and the estimate is beyond
// the tolerance (tolTheta, a log ratio). P(flag) = P(test clears) ·
// P(estimate beyond) treats the two as independent; with no tolerance the
// estimate need only be worse at all, which it is when the test clears,
// and the second factor is left out.
func latencyPower(ez, se, z0, theta, tolTheta, s float64) float64 {
	r := math.Sqrt(s)
	p := normCDF(ez*r - z0)
	if tolTheta > 0 {
		p *= normCDF((theta - tolTheta) * r / se)
	}
	return p
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
		return func(d float64) float64 { return proportionPower(p0, d, tp, n0, n1, z) }
	}
	return MDE{Unit: f.Unit, Change: 100 * solve(at(tp), 1-p0-1e-9), Stat: 100 * solve(at(0), 1-p0-1e-9)}
}

// proportionPower is the probability of flagging a failure probability
// raised from p0 by d on every request, with n0 and n1 requests: the test
// clears z and the estimate is beyond the tolerance tp (as latencyPower).
func proportionPower(p0, d, tp, n0, n1, z float64) float64 {
	pbar := p0 + d*n1/(n0+n1)
	p := normCDF(d/math.Sqrt(pbar*(1-pbar)*(1/n0+1/n1)) - z)
	if tp > 0 {
		se := math.Sqrt(p0*(1-p0)/n0 + (p0+d)*(1-p0-d)/n1)
		p *= normCDF((d - tp) / se)
	}
	return p
}

// casesMDE is the number of cases that must flip from always passing to
// always failing for the paired test to flag the change: each such case,
// asked r0 and r1 times, moves the statistic by r0·r1/(r0+r1) against the
// noise of the cases that vary on their own (the test's variance under no
// change).
func casesMDE(f Finding, z, tp float64) (MDE, bool) {
	r0, r1, cases := alwaysPassing(f)
	if cases == 0 {
		return MDE{}, false
	}
	flag, stat := math.Inf(1), math.Inf(1)
	for k := 1; k <= cases; k++ {
		if math.IsInf(stat, 1) && casesFlagged(k, r0, r1, f.exact.Var, float64(f.N2), z, 0) >= power {
			stat = float64(k)
		}
		if casesFlagged(k, r0, r1, f.exact.Var, float64(f.N2), z, tp) >= power {
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

// casesFlagged is the probability of flagging k cases asked r0 and r1
// times that flip, over noise of variance vNoise, n2 requests on the new
// side: the paired test clears z and the drop is beyond the tolerance tp
// (as latencyPower).
func casesFlagged(k int, r0, r1, vNoise, n2, z, tp float64) float64 {
	n := r0 + r1
	mu := r0 * r1 / n
	v := r0 * r1 * r1 * r0 / (n * n * (n - 1))
	kf := float64(k)
	p := normCDF(kf*mu/math.Sqrt(vNoise+kf*v) - z)
	if tp > 0 {
		se := math.Sqrt(vNoise) / n2
		p *= normCDF((kf*r1/n2 - tp) / math.Max(se, 1e-9))
	}
	return p
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

// expectedZ is the test's expected z if every latency of the new side were
// multiplied by e^theta, drift included. The base's values stand for both
// sides' distribution F; a new request that would have been at y is at
// y+θ, where its pooled quantile is (n0·F(y+θ) + n1·F(y))/N.
func (t tailTest) expectedZ(theta float64) float64 {
	var num, vr float64
	for _, s := range t.strata {
		m := len(s.logs)
		N := float64(s.n0 + s.n1)
		w0, w1 := float64(s.n0)/N, float64(s.n1)/N
		var d float64
		for i, y := range s.logs {
			u := (float64(i) + 1) / float64(m+1)
			d += s.score(w0*ecdf(s.logs, y+theta)+w1*u) - s.score(u)
		}
		num += float64(s.n1) * d / float64(m)
		vr += s.v
	}
	if vr == 0 {
		return 0
	}
	z := num / math.Sqrt(vr)
	if !math.IsNaN(t.deff) {
		z /= math.Sqrt(t.deff)
	}
	return z
}

// ecdf is the pooled quantile of x among sorted, interpolated between
// ranks on the rank/(N+1) scale the scores use.
func ecdf(sorted []float64, x float64) float64 {
	N := len(sorted)
	i := sort.SearchFloat64s(sorted, x)
	switch {
	case i == 0:
		return 0.5 / float64(N+1)
	case i >= N:
		return (float64(N) + 0.5) / float64(N+1)
	}
	lo, hi := sorted[i-1], sorted[i]
	frac := 0.5
	if hi > lo {
		frac = (x - lo) / (hi - lo)
	}
	return (float64(i) + frac) / float64(N+1)
}

// seLog is the standard error of the log of the levels' averaged
// percentile difference, from the density of the pooled log values at the
// percentile (the spacing of the quantiles around it), widened by drift.
func (t tailTest) seLog(p int) float64 {
	q := float64(p) / 100
	h := math.Min(0.05, (1-q)/2)
	var v, wsum float64
	for _, s := range t.strata {
		lo, hi := stats.Percentile(s.logs, 100*(q-h)), stats.Percentile(s.logs, 100*(q+h))
		if hi <= lo {
			continue
		}
		f := 2 * h / (hi - lo)
		w := float64(s.n0) * float64(s.n1) / float64(s.n0+s.n1)
		v += w * w * q * (1 - q) * (1/float64(s.n0) + 1/float64(s.n1)) / (f * f)
		wsum += w
	}
	if wsum == 0 {
		return math.Inf(1)
	}
	se := math.Sqrt(v) / wsum
	if !math.IsNaN(t.deff) {
		se *= math.Sqrt(t.deff)
	}
	return se
}
