package inference

import (
	"math"

	"github.com/aclements/go-moremath/mathx"
)

// Confidence sequences: intervals that hold at every sample size at once,
// so that a level may look after each request and stop when its
// objectives are decided, at the stated error rate (Howard and Ramdas,
// "Sequential estimation of quantiles with applications to A/B-testing
// and best-arm identification", 2022, the beta-binomial boundary of their
// Theorem 2).
//
// For a rate p, the evidence that the rate is above p after k successes
// in t trials is the mixture likelihood ratio M⁺_t(p) = ∫ L(θ)/L(p)
// dπ⁺(θ), π⁺ the Beta(pr, (1−p)r) distribution cut to θ > p: under p it is
// a nonnegative martingale of mean 1, and under any rate below p a
// supermartingale (each factor's mean, pθ'/p + (1−p')(1−θ)/(1−p) at a true
// p' < p, is under 1 for θ > p), so by Ville's inequality it ever reaches
// 1/α with probability at most α. M⁻_t(p), the mixture cut to θ < p, is
// the evidence that the rate is below. A rate ruled out by either is out
// of the sequence's interval: each side is a one-sided bound that holds
// at every t at once with probability 1 − α, the interval both with
// 1 − 2α, and a decision against p0 — one side's bound past it — is wrong
// with probability at most α, the one-sided error of the gate's tests.
// Mixing over both sides at once, as their Theorem 2 does, spends part of
// the prior where the data do not point and needed 210 requests on
// average where this needs 180 (docs/gate.md). A quantile's sequence is
// the same boundary applied to the draws below it (at the true
// q-quantile they are Bernoulli(q)), read as order statistics.

// Sequence is a confidence sequence's error rate and the concentration of
// its mixture.
type Sequence struct {
	// Alpha is the probability that a side of the sequence ever misses;
	// the interval misses with at most 2·Alpha (Conf).
	Alpha float64
	// R is the mixture's concentration: Beta(pr, (1−p)r) around the rate
	// tested. A larger R is tighter late and looser early.
	R float64
}

// Conf is the confidence of the sequence's interval, both sides at once.
func (s Sequence) Conf() float64 { return 1 - 2*s.Alpha }

// NewSequence returns the sequence at alpha whose boundary is tightest
// near horizon trials: a mixture whose spread matches the change a test
// at alpha can just see after horizon trials, δ² ≈ 2p(1−p)·ln(1/α)/horizon,
// which is the variance p(1−p)/(r+1) of Beta(pr, (1−p)r).
func NewSequence(alpha float64, horizon int) Sequence {
	r := float64(horizon)/(2*math.Log(1/alpha)) - 1
	return Sequence{Alpha: alpha, R: max(1, r)}
}

// logM is ln of the evidence against p after k successes in t trials:
// the larger of ln M⁺_t(p) and ln M⁻_t(p).
func (s Sequence) logM(k, t int, p float64) float64 {
	if p <= 0 || p >= 1 {
		if p <= 0 && k == 0 || p >= 1 && k == t {
			return 0 // the only outcome p allows: no evidence against it
		}
		return math.Inf(1)
	}
	a, b := p*s.R, (1-p)*s.R
	ak, bk := a+float64(k), b+float64(t-k)
	// ln of ∫ L(θ)/L(p) dBeta(θ; a, b) over all θ; each side's share of
	// the posterior over its share of the prior cuts it to that side.
	whole := lbeta(ak, bk) - lbeta(a, b) - float64(k)*math.Log(p) - float64(t-k)*math.Log1p(-p)
	below, prior := mathx.BetaInc(p, ak, bk), mathx.BetaInc(p, a, b)
	up := whole + math.Log1p(-below) - math.Log1p(-prior)
	down := whole + math.Log(below) - math.Log(prior)
	return max(up, down)
}

func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// excludes reports whether k successes in t trials rule p out.
func (s Sequence) excludes(k, t int, p float64) bool {
	return s.logM(k, t, p) >= math.Log(1/s.Alpha)
}

// Rate returns the sequence's interval for a rate after k successes in t
// trials: every p it has not ruled out. t = 0 gives [0, 1].
func (s Sequence) Rate(k, t int) (lo, hi float64) {
	if t <= 0 {
		return 0, 1
	}
	mle := float64(k) / float64(t)
	// ln M⁺_t(p) grows as p falls under the MLE, ln M⁻_t(p) as it rises
	// over it.
	lo, hi = 0, 1
	if s.excludes(k, t, 0) {
		lo = bisectIn(0, mle, func(p float64) bool { return s.excludes(k, t, p) })
	}
	if s.excludes(k, t, 1) {
		hi = bisectIn(mle, 1, func(p float64) bool { return !s.excludes(k, t, p) })
	}
	return lo, hi
}

// bisectIn returns the point of [a, b] where pred turns from true to false.
func bisectIn(a, b float64, pred func(float64) bool) float64 {
	for range 60 {
		m := (a + b) / 2
		if pred(m) {
			a = m
		} else {
			b = m
		}
	}
	return (a + b) / 2
}

// Decide says where a rate stands against p0 after k successes in t
// trials: +1 when every rate up to p0 is ruled out, −1 when every rate
// from p0 is, 0 while undecided. A decision is wrong with probability at
// most Alpha, however often it is asked.
func (s Sequence) Decide(k, t int, p0 float64) int {
	lo, hi := s.Rate(k, t)
	switch {
	case lo > p0:
		return 1
	case hi < p0:
		return -1
	}
	return 0
}

// Ranks returns the order statistics bounding the sequence's interval for
// the q-quantile after t draws, as QuantileRanks does for a fixed n:
// [X(lo), X(hi)], lo = 0 meaning −∞ and hi = t+1 meaning +∞. The draws at
// or below the true quantile number k with M⁺_t(q) and M⁻_t(q) < 1/α at
// every t but with probability 2α; ln M⁺_t rises with k and ln M⁻_t
// falls, so the k they allow are an interval, found by bisection from its
// least value.
func (s Sequence) Ranks(t int, q float64) (lo, hi int) {
	if t <= 0 {
		return 0, 1
	}
	mid := min(t, max(0, int(math.Round(q*float64(t)))))
	if s.excludes(mid, t, q) {
		return 0, t + 1 // cannot happen for a sane Alpha; claim nothing
	}
	// lo: the least k not excluded, in [0, mid].
	a, b := -1, mid // excludes(a) (or a = −1), !excludes(b)
	for b-a > 1 {
		m := (a + b) / 2
		if s.excludes(m, t, q) {
			a = m
		} else {
			b = m
		}
	}
	lo = b
	// hi − 1: the greatest k not excluded, in [mid, t].
	a, b = mid, t+1 // !excludes(a), excludes(b) (or b = t+1)
	for b-a > 1 {
		m := (a + b) / 2
		if s.excludes(m, t, q) {
			b = m
		} else {
			a = m
		}
	}
	return lo, a + 1
}
