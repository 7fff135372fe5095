// Package gamma draws from the gamma distribution, the one draw the
// open loop's arrivals (package load) and the synthetic traces (package
// trace) both need: gaps of shape k, burstier than Poisson below 1.
package gamma

import (
	"math"
	"math/rand/v2"
)

// Draw draws from Gamma(k, 1) (Marsaglia and Tsang, 2000; for k < 1 the
// boost of their section 6).
func Draw(r *rand.Rand, k float64) float64 {
	if k < 1 {
		return Draw(r, k+1) * math.Pow(r.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
