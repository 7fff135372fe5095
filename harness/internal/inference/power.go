package inference

import (
	"math"
	"sort"

	"github.com/llmsla/llmsla/harness/stats"
)

// The power of the tests against a stated shape of change: what the
// minimal detectable effects and the plans of harness/gate are computed
// from.

// Power is the probability minimal detectable effects are computed for.
const Power = 0.8

// ZFirst is the z a test needs to pass Holm's first step in a family of m
// one-sided tests at alpha: the bar a lone change must clear, which is
// what the minimal detectable effects are computed against.
func ZFirst(alpha float64, m int) float64 {
	return NormQuantile(1 - alpha/math.Max(1, float64(m)))
}

// LatencyPower is the probability of flagging a slowdown e^θ − 1 of every
// request with s times the requests a side: the test, of expected z ez
// and estimate of standard error se, clears z0, and the estimate is beyond
// the tolerance (tolTheta, a log ratio). P(flag) = P(test clears) ·
// P(estimate beyond) treats the two as independent; with no tolerance the
// estimate need only be worse at all, which it is when the test clears,
// and the second factor is left out.
func LatencyPower(ez, se, z0, theta, tolTheta, s float64) float64 {
	r := math.Sqrt(s)
	p := NormCDF(ez*r - z0)
	if tolTheta > 0 {
		p *= NormCDF((theta - tolTheta) * r / se)
	}
	return p
}

// ProportionPower is the probability of flagging a failure probability
// raised from p0 by d on every request, with n0 and n1 requests: the test
// clears z and the estimate is beyond the tolerance tp (as LatencyPower).
func ProportionPower(p0, d, tp, n0, n1, z float64) float64 {
	pbar := p0 + d*n1/(n0+n1)
	p := NormCDF(d/math.Sqrt(pbar*(1-pbar)*(1/n0+1/n1)) - z)
	if tp > 0 {
		se := math.Sqrt(p0*(1-p0)/n0 + (p0+d)*(1-p0-d)/n1)
		p *= NormCDF((d - tp) / se)
	}
	return p
}

// CasesFlagged is the probability of flagging k cases asked r0 and r1
// times that flip from always passing to always failing, over noise of
// variance vNoise (the paired test's variance under no change), n2
// requests on the new side: the paired test clears z and the drop is
// beyond the tolerance tp (as LatencyPower). Each such case moves the
// statistic by r0·r1/(r0+r1).
func CasesFlagged(k int, r0, r1, vNoise, n2, z, tp float64) float64 {
	n := r0 + r1
	mu := r0 * r1 / n
	v := r0 * r1 * r1 * r0 / (n * n * (n - 1))
	kf := float64(k)
	p := NormCDF(kf*mu/math.Sqrt(vNoise+kf*v) - z)
	if tp > 0 {
		se := math.Sqrt(vNoise) / n2
		p *= NormCDF((kf*r1/n2 - tp) / math.Max(se, 1e-9))
	}
	return p
}

// Solve returns the smallest x in (0, hi] with p(x) ≥ Power, for p
// increasing in x, or +Inf when p(hi) < Power.
func Solve(p func(float64) float64, hi float64) float64 {
	if !(hi > 0) || p(hi) < Power {
		return math.Inf(1)
	}
	lo := 0.0
	for range 40 {
		mid := (lo + hi) / 2
		if p(mid) >= Power {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// ExpectedZ is the test's expected z if every latency of the new side were
// multiplied by e^theta, drift included. The base's values stand for both
// sides' distribution F; a new request that would have been at y is at
// y+θ, where its pooled quantile is (n0·F(y+θ) + n1·F(y))/N.
func (t TailTest) ExpectedZ(theta float64) float64 {
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
	if !math.IsNaN(t.Deff) {
		z /= math.Sqrt(t.Deff)
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

// SELog is the standard error of the log of the levels' averaged
// percentile difference, from the density of the pooled log values at the
// percentile (the spacing of the quantiles around it), widened by drift.
func (t TailTest) SELog() float64 {
	q := float64(t.p) / 100
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
	if !math.IsNaN(t.Deff) {
		se *= math.Sqrt(t.Deff)
	}
	return se
}
