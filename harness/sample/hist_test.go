package sample

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestHistBuckets: every duration falls in a bucket whose range holds it,
// buckets are ordered as durations are, and a bucket's middle is within
// 1/128 of any duration in it.
func TestHistBuckets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(v uint64) {
		b := bucketOf(v)
		if b >= NumBuckets {
			t.Fatalf("bucket %d of %d is past NumBuckets %d", b, v, NumBuckets)
		}
		lo, w := bucketRange(b)
		if v < lo || v-lo >= w {
			t.Fatalf("%d in bucket %d = [%d, %d+%d)", v, b, lo, lo, w)
		}
		if rel := math.Abs(mid(b)-float64(v)) / float64(v); v > 0 && rel > 1.0/128 {
			t.Fatalf("%d stands as %v: relative error %v > 1/128", v, mid(b), rel)
		}
		if v > 0 && bucketOf(v-1) > b {
			t.Fatalf("bucket of %d after bucket of %d", v-1, v)
		}
	}
	for v := uint64(0); v < 1<<12; v++ {
		check(v)
	}
	for range 100_000 {
		check(r.Uint64() >> r.IntN(64))
	}
	check(math.MaxUint64 >> 1)
}

// TestHistPercentiles: on gaps spread over six orders of magnitude, every
// percentile of a histogram is within 1/128 of the exact one on the raw
// gaps; N, Sum, Min and Max are exact; histograms merged in parts equal
// the histogram of the whole.
func TestHistPercentiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var whole, a, b Hist
	raw := make([]float64, 0, 20_000)
	var sum time.Duration
	for i := range 20_000 {
		d := time.Duration(math.Exp(r.NormFloat64()*2.5 + 13)) // median ~0.4 ms, from ns to seconds
		raw = append(raw, float64(d))
		sum += d
		whole.Add(d)
		if i%3 == 0 {
			a.Add(d)
		} else {
			b.Add(d)
		}
	}
	slices.Sort(raw)
	var merged Hist
	merged.Merge(&a)
	merged.Merge(&b)
	if merged.N != whole.N || merged.Sum != whole.Sum || merged.Min != whole.Min || merged.Max != whole.Max || !slices.Equal(merged.counts, whole.counts) {
		t.Fatalf("merged parts differ from the whole")
	}
	if whole.N != int64(len(raw)) || whole.Sum != sum || float64(whole.Min) != raw[0] || float64(whole.Max) != raw[len(raw)-1] {
		t.Errorf("N, Sum, Min, Max not exact")
	}
	for _, p := range []float64{0, 1, 10, 50, 90, 95, 99, 99.9, 100} {
		exact := percentile(raw, p)
		got := whole.Percentile(p)
		if math.Abs(got-exact) > exact/128 {
			t.Errorf("p%v = %v, exact %v: off by %.3f%%, more than 1/128", p, got, exact, 100*math.Abs(got-exact)/exact)
		}
	}
	if len(whole.counts) > NumBuckets {
		t.Errorf("%d buckets used, more than NumBuckets", len(whole.counts))
	}
}

func percentile(sorted []float64, p float64) float64 {
	rank := p / 100 * float64(len(sorted)-1)
	lo, hi := int(math.Floor(rank)), int(math.Ceil(rank))
	return sorted[lo] + (sorted[hi]-sorted[lo])*(rank-float64(lo))
}

func TestHistJSON(t *testing.T) {
	var h Hist
	for _, d := range []time.Duration{5, 5, 70, 1000, 123456789} {
		h.Add(d)
	}
	b, err := json.Marshal(Sample{ITL: &h})
	if err != nil {
		t.Fatal(err)
	}
	var back Sample
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.ITL == nil || back.ITL.N != 5 || back.ITL.Sum != h.Sum || !slices.Equal(back.ITL.counts, h.counts) {
		t.Errorf("round trip: %s → %+v", b, back.ITL)
	}
	for name, bad := range map[string]string{
		"odd":   `{"n":1,"sum_ns":5,"min_ns":5,"max_ns":5,"buckets":[5]}`,
		"order": `{"n":2,"sum_ns":10,"min_ns":5,"max_ns":5,"buckets":[6,1,5,1]}`,
		"count": `{"n":3,"sum_ns":5,"min_ns":5,"max_ns":5,"buckets":[5,1]}`,
		"range": `{"n":1,"sum_ns":5,"min_ns":5,"max_ns":5,"buckets":[99999,1]}`,
		"zero":  `{"n":0,"sum_ns":0,"min_ns":0,"max_ns":0,"buckets":[5,0]}`,
	} {
		var h Hist
		if err := json.Unmarshal([]byte(bad), &h); err == nil {
			t.Errorf("%s: %s accepted", name, bad)
		}
	}
}

// TestMergeMany pools many short histograms, as a level's requests are,
// through both of Merge's paths (buckets h has, added in place; buckets it
// lacks, merged in), and gets the histogram of every gap added to one.
func TestMergeMany(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var whole, pooled Hist
	for range 500 {
		var one Hist
		for range r.IntN(60) {
			d := time.Duration(r.ExpFloat64() * float64(2*time.Millisecond))
			one.Add(d)
			whole.Add(d)
		}
		pooled.Merge(&one)
		pooled.Merge(&Hist{}) // an empty one changes nothing
	}
	again := pooled
	again.counts = slices.Clone(pooled.counts)
	again.Merge(&pooled) // every bucket there already: added in place
	if pooled.N != whole.N || pooled.Sum != whole.Sum || pooled.Min != whole.Min || pooled.Max != whole.Max || !slices.Equal(pooled.counts, whole.counts) {
		t.Fatalf("pooled histograms differ from the whole")
	}
	for i, c := range again.counts {
		if c.bucket != whole.counts[i].bucket || c.n != 2*whole.counts[i].n {
			t.Fatalf("bucket %d merged into itself: %v, want %v doubled", i, c, whole.counts[i])
		}
	}
}
