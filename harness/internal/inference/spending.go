package inference

import "math"

// A group-sequential design tests the same hypothesis at a few planned
// looks as the data grow and stops at the first that rejects. Testing each
// look at a share of α (Bonferroni over the looks) holds the error, but
// wastes most of it: the looks' statistics are strongly correlated (the
// last look's data hold every earlier look's), so the union of their
// rejections is far less likely than the sum. Lan and DeMets's α-spending
// gives each look the boundary at which the probability of rejecting
// there, and at no look before, is the α spent since the last look — a
// spending function of the information fraction t — computed on the joint
// distribution of the looks' z statistics: z_k = S_k/√t_k for a Brownian
// motion S (independent increments of variance t_k − t_{k−1}), so that
// corr(z_j, z_k) = √(t_j/t_k) (Jennison and Turnbull, "Group Sequential
// Methods", ch. 19, whose recursive integration this is). The last look of
// a design with O'Brien–Fleming-like spending then tests at most of α
// (looks at 40, 64, 86 and 100% of the information, at 0.05 one-sided:
// 0.039), instead of what Bonferroni over the looks leaves it (0.016).

// Spend is the α an O'Brien–Fleming-like spending function (Lan–DeMets)
// allows by information fraction t of a one-sided design at level alpha:
// 2 − 2Φ(z_{1−α/2}/√t). It gives almost nothing to early looks.
func Spend(alpha, t float64) float64 {
	if t >= 1 {
		return alpha
	}
	if t <= 0 {
		return 0
	}
	return 2 * NormCDF(-NormQuantile(1-alpha/2)/math.Sqrt(t))
}

// seqGrid is the number of grid steps per unit of the score's standard
// deviation in SpendingLevels' integration: boundaries to about 1e-4 in z.
const seqGrid = 48

// SpendingLevels returns the nominal one-sided level of each look of a
// group-sequential design at level alpha whose looks are at the rising
// information fractions t (the last 1, else the design is cut short
// there): look k rejects when its one-sided p-value is at most the k-th
// level. The levels depend only on the looks so far, so a look's level
// is known before the next look is planned. Futility stops (accepting at
// a look) may be added freely: they only lower the error.
func SpendingLevels(alpha float64, t []float64) []float64 {
	out := make([]float64, len(t))
	// dens is the density of the score S_{k−1} on the grid s = lo + i·h,
	// over the paths that have not rejected yet.
	var dens []float64
	var lo, h, prevT, spent float64
	for k, tk := range t {
		target := Spend(alpha, tk) - spent
		if k == 0 {
			c := NormQuantile(1 - target)
			if target <= 0 {
				c = math.Inf(1)
			}
			out[0] = target
			spent += target
			// The grid covers S_1 from 8 sd below 0 to its boundary.
			sd := math.Sqrt(tk)
			lo = -8 * sd
			up := math.Min(c*sd, 8*sd)
			n := int(math.Ceil((up-lo)/(sd/seqGrid))) + 1
			h = (up - lo) / float64(n-1)
			dens = make([]float64, n)
			for i := range dens {
				s := lo + float64(i)*h
				dens[i] = math.Exp(-s*s/(2*tk)) / math.Sqrt(2*math.Pi*tk)
			}
			prevT = tk
			continue
		}
		d := tk - prevT
		sd := math.Sqrt(d)
		// cross is the probability of no rejection before and S_k ≥ u.
		cross := func(u float64) float64 {
			var p float64
			for i, f := range dens {
				s := lo + float64(i)*h
				p += trapezoid(i, len(dens)) * f * NormCDF(-(u-s)/sd)
			}
			return p * h
		}
		var u float64
		if target <= 0 {
			u = math.Inf(1)
		} else {
			// The boundary is above the most a path can reach without it
			// mattering: bisect on u in [−10, 10]·√t_k.
			a, b := -10*math.Sqrt(tk), 10*math.Sqrt(tk)
			for range 60 {
				m := (a + b) / 2
				if cross(m) > target {
					a = m
				} else {
					b = m
				}
			}
			u = (a + b) / 2
		}
		c := u / math.Sqrt(tk)
		out[k] = NormCDF(-c)
		spent += cross(u)
		if k == len(t)-1 {
			break
		}
		// The density of S_k below u: the convolution of S_{k−1}'s with
		// the increment's normal.
		nlo := -8 * math.Sqrt(tk)
		up := math.Min(u, 8*math.Sqrt(tk))
		n := max(int(math.Ceil((up-nlo)/(math.Sqrt(tk)/seqGrid)))+1, 2)
		nh := (up - nlo) / float64(n-1)
		next := make([]float64, n)
		for j := range next {
			x := nlo + float64(j)*nh
			var f float64
			for i, g := range dens {
				s := lo + float64(i)*h
				z := (x - s) / sd
				f += trapezoid(i, len(dens)) * g * math.Exp(-z*z/2)
			}
			next[j] = f * h / (sd * math.Sqrt(2*math.Pi))
		}
		dens, lo, h, prevT = next, nlo, nh, tk
	}
	return out
}

// trapezoid is the trapezoid rule's weight of point i of n.
func trapezoid(i, n int) float64 {
	if i == 0 || i == n-1 {
		return 0.5
	}
	return 1
}

// ConditionalPower is the probability that a one-sided test at p-value p
// with information fraction t of its design ends the design at a p-value
// of at most alpha, if the effect goes on as it shows so far (its current
// trend, Lan and Wittes's stochastic curtailment): the score S_t = z√t of
// a Brownian motion with the drift it shows, z/√t, ends at S_1 ~
// N(z/√t, 1 − t). A sequential design may stop for futility when it is
// low: such a stop is non-binding, it never adds an error, only costs
// power.
func ConditionalPower(p, t, alpha float64) float64 {
	z, c := NormQuantile(1-p), NormQuantile(1-alpha)
	if t >= 1 {
		if p <= alpha {
			return 1
		}
		return 0
	}
	return NormCDF((z/math.Sqrt(t) - c) / math.Sqrt(1-t))
}
