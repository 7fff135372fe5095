package gate

import "math"

// harrellDavis estimates the q-quantile (0 < q < 1) of the distribution
// sorted was drawn from, as a weighted mean of all its order statistics
// with the weights of a Beta(q(n+1), (1−q)(n+1)) distribution (Harrell and
// Davis, 1982). A percentile by interpolation between the two nearest
// ranks, as a run's report gives it, rests on two requests; this rests on
// the dozens around them, so it moves less from one sample to the next
// (at the p95 of 200 lognormal latencies, by about a tenth), which is what
// a comparison of two sides needs. BenchmarkDotNet compares benchmark
// distributions with it for the same reason.
func harrellDavis(sorted []float64, q float64) float64 {
	n := len(sorted)
	switch n {
	case 0:
		return math.NaN()
	case 1:
		return sorted[0]
	}
	a, b := q*float64(n+1), (1-q)*float64(n+1)
	var sum, prev float64
	for i, x := range sorted {
		cur := regIncBeta(a, b, float64(i+1)/float64(n))
		sum += (cur - prev) * x
		prev = cur
	}
	return sum
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Numerical Recipes, betacf), on the side of x where
// it converges fast.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	clamp := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/clamp(1-(a+b)*x/(a+1))
	h := d
	for m := 1; m <= 300; m++ {
		mf := float64(m)
		aa := mf * (b - mf) * x / ((a - 1 + 2*mf) * (a + 2*mf))
		d = 1 / clamp(1+aa*d)
		c = clamp(1 + aa/c)
		h *= d * c
		aa = -(a + mf) * (a + b + mf) * x / ((a + 2*mf) * (a + 1 + 2*mf))
		d = 1 / clamp(1+aa*d)
		c = clamp(1 + aa/c)
		del := d * c
		h *= del
		if math.Abs(del-1) < 3e-14 {
			break
		}
	}
	return h
}
