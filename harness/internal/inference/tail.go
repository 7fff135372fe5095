package inference

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"math"
	"slices"
	"sort"

	"github.com/aclements/go-moremath/mathx"
)

// A latency percentile is judged on the requests of both sides pooled,
// level by level, with a rank test whose scores weigh the part of the
// distribution the percentile describes. For p95 that is the tail beyond
// the p90: a request scores Φ⁻¹(u) − Φ⁻¹(0.90) when its pooled rank puts
// it at quantile u above 0.90, and 0 below. Counting the requests beyond
// the pooled p95 (Mood's test for a quantile) asks the same question but
// throws away how far beyond they went, and so needs more requests to see
// the same tail regression. For
// p50 every request scores its normal score Φ⁻¹(u) (van der Waerden's
// test). Ranks make the test free of any assumption about the shape of
// latencies, and of outliers.
//
// Requests of one run share its conditions (the machine's load, the
// server's cache), so their scores are not independent, and a test that
// treated 200 requests as 200 independent draws would see run-to-run drift
// as a change. The drift is measured instead of assumed away: the scores
// of each run are summed, and the spread of those sums around their side's
// mean beyond what independent requests would give is the drift's share.
// Drift that moves slowly makes consecutive runs alike, and the mean of
// runs that are alike varies more than their spread shows; the runs' lag-1
// correlation, taken as that of an AR(1) series, scales the share up to
// the variance of the mean. The test's variance is multiplied by the
// resulting design effect (Rao and Scott's correction) when it exceeds 1.

// scoreFunc returns the scores of percentile p for n pooled requests: the
// normal scores of the tail that holds twice the requests beyond p, and at
// least minTail of them, or every normal score for p ≤ 50. A tail of a
// handful of requests could never make the test significant, however slow
// the new side: ranks only know that its requests are all at the top.
func scoreFunc(p, n int) func(u float64) float64 {
	q := float64(p) / 100
	if q <= 0.5 {
		return NormQuantile
	}
	start := math.Min(1-2*(1-q), 1-float64(minTail)/float64(n))
	if start <= 0.5 {
		return NormQuantile
	}
	z0 := NormQuantile(start)
	return func(u float64) float64 { return math.Max(0, NormQuantile(u)-z0) }
}

// minTail is the fewest pooled requests of a level a tail score covers.
const minTail = 20

// LevelRuns is one stratum of a latency test — a load level — holding
// each side's values run by run: Runs[side][run] (side 0 the base).
type LevelRuns struct {
	Runs [2][][]float64
}

// TailLevel is the percentile of one level on each side: Index is the
// level's place among the levels given to RunTailTest.
type TailLevel struct {
	Index    int
	Old, New float64
	N1, N2   int // requests
}

// TailTest is the outcome of the rank test of one latency percentile over
// the levels of a scenario on an endpoint.
type TailTest struct {
	// Z > 0: the new side is slower; corrected for drift once it was
	// measured (see PoolDrift). ZRaw is z before the correction.
	Z, ZRaw float64
	// Deff is the design effect applied (≥ 1), NaN when the drift could
	// not be measured (fewer than MinDriftDF degrees of freedom).
	Deff float64
	// DF is the degrees of freedom behind Deff: runs − 1, summed over
	// sides.
	DF int
	// Fingerprint hashes the values, to find figures that are the same.
	Fingerprint uint64
	// Old and New are the levels' percentiles averaged with the weights
	// of the test; Levels holds each level's; N the requests a side.
	Old, New float64
	Levels   []TailLevel
	N        [2]int

	p int
	// disp and expect are the spread of the run sums and what independent
	// requests would give, lag their lag-1 products, runs the runs per
	// side.
	disp, expect, lag float64
	runs              int
	// nu is the degrees of freedom of the drift estimate as seen by the
	// test: runs − 1 on each side, not counting levels, whose runs share
	// the machine's state.
	nu     int
	strata []tailStratum
}

// tailStratum keeps what the sensitivity of the test needs of a level:
// the base side's values stand for the distribution both sides would have
// without a change (the new side's may hold one).
type tailStratum struct {
	logs   []float64 // the base side's log values, sorted
	n0, n1 int
	v      float64 // variance of the statistic under no change
	score  func(float64) float64
}

// MinDriftDF is the fewest degrees of freedom (runs − 1, summed over
// sides) with which drift is measured; with fewer, Deff is NaN.
const MinDriftDF = 2

// tailSums accumulates a test over its levels.
type tailSums struct {
	num, vr, expect, wsum float64
	// dev[side][k] sums, over the levels, how far the k-th run's scores
	// are from the side's mean: the k-th runs of the levels ran one after
	// the other (go test -count runs every level once per round), so they
	// share the machine's state, and drift shows in their sum.
	dev [2][]float64
}

// RunTailTest runs the rank test of percentile p (50, 95, 99 …) on levels.
// The drift between runs is measured, not yet applied: PoolDrift applies
// it, or WithoutDrift keeps the test as if requests were independent.
func RunTailTest(levels []LevelRuns, p int) TailTest {
	t := TailTest{p: p}
	var sums tailSums
	h := fnv.New64a()
	for i, lv := range levels {
		t.addLevel(&sums, i, lv, h)
	}
	if sums.wsum > 0 {
		t.Old /= sums.wsum
		t.New /= sums.wsum
	}
	t.setDispersion(sums.dev)
	t.expect, t.nu = sums.expect, t.DF
	t.Fingerprint = h.Sum64()
	if sums.vr > 0 {
		t.ZRaw = sums.num / math.Sqrt(sums.vr)
	}
	t.Deff = math.NaN()
	if t.DF >= MinDriftDF && sums.expect > 0 {
		t.setDrift(t.disp/sums.expect, autocorrelation(t.lag, t.disp, t.runs))
	}
	return t
}

// addLevel adds level i to the test: its scores, its share of the drift
// and its percentiles.
func (t *TailTest) addLevel(sums *tailSums, i int, lv LevelRuns, h hash.Hash64) {
	var pooled []tagged
	var sides [2][]float64
	for side := range 2 {
		for run, vals := range lv.Runs[side] {
			for _, v := range vals {
				pooled = append(pooled, tagged{v, side, run})
				binary.Write(h, binary.LittleEndian, v)
			}
			sides[side] = append(sides[side], vals...)
		}
	}
	n0, n1 := len(sides[0]), len(sides[1])
	if n0 == 0 || n1 == 0 {
		return
	}
	N := n0 + n1
	score := scoreFunc(t.p, N)
	sort.Slice(pooled, func(i, j int) bool { return pooled[i].v < pooled[j].v })
	scores := midRankScores(pooled, score)
	var mean float64
	for _, a := range scores {
		mean += a
	}
	mean /= float64(N)
	var ss, sum1 float64
	runSums := [2][]float64{make([]float64, len(lv.Runs[0])), make([]float64, len(lv.Runs[1]))}
	for i, x := range pooled {
		d := scores[i] - mean
		ss += d * d
		runSums[x.side][x.run] += scores[i]
		if x.side == 1 {
			sum1 += scores[i]
		}
	}
	v := float64(n0) * float64(n1) / (float64(N) * float64(N-1)) * ss
	sums.num += sum1 - float64(n1)*mean
	sums.vr += v
	sums.addDrift(lv, runSums, ss/float64(N-1))
	slices.Sort(sides[0])
	slices.Sort(sides[1])
	logs := make([]float64, n0)
	for i, x := range sides[0] {
		logs[i] = math.Log(math.Max(x, 1e-9))
	}
	t.strata = append(t.strata, tailStratum{logs: logs, n0: n0, n1: n1, v: v, score: score})
	q := float64(t.p) / 100
	lc := TailLevel{Index: i, Old: HarrellDavis(sides[0], q), New: HarrellDavis(sides[1], q), N1: n0, N2: n1}
	t.Levels = append(t.Levels, lc)
	w := float64(n0) * float64(n1) / float64(N)
	t.Old += w * lc.Old
	t.New += w * lc.New
	sums.wsum += w
	t.N[0] += n0
	t.N[1] += n1
}

// addDrift adds a level's run sums to the drift: their spread around the
// side's mean score, and what independent requests of variance sigma2
// would give.
func (s *tailSums) addDrift(lv LevelRuns, runSums [2][]float64, sigma2 float64) {
	for side := range 2 {
		runs := lv.Runs[side]
		total, sumSq := 0.0, 0.0
		var sideSum float64
		for r, vals := range runs {
			total += float64(len(vals))
			sumSq += float64(len(vals) * len(vals))
			sideSum += runSums[side][r]
		}
		if len(runs) < 2 || total == 0 {
			continue
		}
		m := sideSum / total
		for len(s.dev[side]) < len(runs) {
			s.dev[side] = append(s.dev[side], 0)
		}
		for r, vals := range runs {
			s.dev[side][r] += runSums[side][r] - float64(len(vals))*m
		}
		s.expect += sigma2 * (total - sumSq/total)
	}
}

// setDispersion sums the runs' squared deviations and lag-1 products.
func (t *TailTest) setDispersion(dev [2][]float64) {
	for _, d := range dev {
		if len(d) < 2 {
			continue
		}
		for k, x := range d {
			t.disp += x * x
			if k > 0 {
				t.lag += x * d[k-1]
			}
		}
		t.DF += len(d) - 1
		t.runs = max(t.runs, len(d))
	}
}

// setDrift corrects the test for drift: ratio is the spread of the run
// sums over what independent requests give, rho the runs' correlation
// with the previous run.
func (t *TailTest) setDrift(ratio, rho float64) {
	t.Deff = 1 + math.Max(0, ratio-1)*meanInflation(rho, t.runs)
	t.Z = t.ZRaw / math.Sqrt(t.Deff)
}

// meanInflation is what turns the spread of j runs around their mean into
// the variance of their mean, for runs in an AR(1) series of lag-1
// correlation rho: the spread is short of the variance by the part the
// mean itself takes, f/j of it, and the mean varies f times as much as
// that of independent runs, f = 1 + 2 Σ (1 − l/j) ρ^l. For independent
// runs it is j/(j−1).
func meanInflation(rho float64, j int) float64 {
	J := float64(j)
	f := 1.0
	for l := 1; l < j; l++ {
		f += 2 * (1 - float64(l)/J) * math.Pow(rho, float64(l))
	}
	return J * f / (J - f)
}

// autocorrelation estimates the runs' lag-1 correlation from the sums of
// lag-1 products and squares of their deviations, corrected for the bias
// of short series around their own mean (Marriott and Pope: E[r] ≈ ρ −
// (1+4ρ)/j), and kept within [0, 0.9]: negative correlation at ten runs
// is noise, and beyond 0.9 a recording says nothing of its mean.
func autocorrelation(lag, sq float64, j int) float64 {
	if sq <= 0 || j <= 4 {
		return 0
	}
	r := lag / sq
	J := float64(j)
	return math.Min(0.9, math.Max(0, (J*r+1)/(J-4)))
}

// PoolDrift averages each test's drift with the whole recording's for the
// same figure: drift between runs is mostly the machine's, shared by every
// benchmark of a recording, and one scenario's estimate — two series of
// ten runs — is noisy. The test's own evidence keeps half the weight, so
// drift peculiar to one scenario still widens its test.
func PoolDrift(ts []*TailTest) {
	var ratio, lag, sq float64
	n := 0
	for _, t := range ts {
		if !math.IsNaN(t.Deff) {
			ratio += t.disp / t.expect
			lag += t.lag / t.expect
			sq += t.disp / t.expect
			n++
		}
	}
	if n == 0 {
		return
	}
	pooled := ratio / float64(n)
	for _, t := range ts {
		if !math.IsNaN(t.Deff) {
			own := t.disp / t.expect
			rho := autocorrelation(lag+t.lag/t.expect, sq+own, t.runs)
			t.setDrift((own+pooled)/2, rho)
		}
	}
}

// WithoutDrift is t as if requests were independent: the test the drift
// correction replaces.
func (t *TailTest) WithoutDrift() {
	if !math.IsNaN(t.Deff) {
		t.Z, t.Deff = t.ZRaw, 1
	}
}

// tagged is one request's value, its side and its run.
type tagged struct {
	v    float64
	side int
	run  int
}

// midRankScores scores sorted values by their pooled quantile u =
// rank/(N+1), ties sharing the mean of their ranks.
func midRankScores(sorted []tagged, score func(float64) float64) []float64 {
	N := len(sorted)
	out := make([]float64, N)
	for i := 0; i < N; {
		j := i + 1
		for j < N && sorted[j].v == sorted[i].v {
			j++
		}
		a := score((float64(i+j+1) / 2) / float64(N+1))
		for k := i; k < j; k++ {
			out[k] = a
		}
		i = j
	}
	return out
}

// PAbove is the one-sided p-value of the hypothesis that the new side is
// not slower, PBelow of the hypothesis that it is not faster.
//
// With drift, part of the variance is estimated from a few runs, so z is
// referred to Student's t rather than the normal, with Satterthwaite's
// degrees of freedom: as many as the runs give when drift dominates, and
// towards the normal as it vanishes. A normal reference would make a
// drift estimate that came out low by chance a false alarm.
func (t TailTest) PAbove() float64 { return t.tailP(t.Z) }
func (t TailTest) PBelow() float64 { return t.tailP(-t.Z) }

func (t TailTest) tailP(z float64) float64 {
	nu := t.effectiveDF()
	if math.IsInf(nu, 1) {
		return NormCDF(-z)
	}
	if z < 0 {
		return 1 - studentTail(-z, nu)
	}
	return studentTail(z, nu)
}

// effectiveDF is the degrees of freedom of z's reference distribution.
func (t TailTest) effectiveDF() float64 {
	if math.IsNaN(t.Deff) || t.Deff <= 1 || t.nu == 0 {
		return math.Inf(1)
	}
	r := t.Deff / (t.Deff - 1)
	return math.Min(1e6, float64(t.nu)*r*r)
}

// studentTail is P(T > x), x ≥ 0, for T of Student's t with nu degrees of
// freedom. stats.TDist.CDF computes the same as 1 − (1 − P), which rounds
// every p below about 1e-16 to 0.
func studentTail(x, nu float64) float64 {
	return 0.5 * mathx.BetaInc(nu/(nu+x*x), nu/2, 0.5)
}
