package sample

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"
)

// Hist counts durations (a request's inter-token gaps) in fixed log-linear
// buckets, so that what a request keeps is bounded whatever the endpoint
// sends: a flood of chunks adds counts, never memory past NumBuckets pairs.
// Histograms merge by adding counts, so gaps pool across requests, runs and
// files exactly as the raw gaps did.
//
// Precision: durations under 64 ns have a bucket each; above, each power of
// two is split into 64 equal buckets. A duration is then represented by its
// bucket's middle, within 1/128 (0.79%) of its true value, and so is every
// percentile: linear interpolation between the neighbours of a rank moves
// by no more than they do. N, Sum (so the mean), Min and Max are exact.
//
// The zero value is an empty histogram, ready to use.
type Hist struct {
	N        int64
	Sum      time.Duration
	Min, Max time.Duration
	counts   []bucketCount // sorted by bucket, no zero counts
	last     int           // index in counts of the last Add, tried first
}

type bucketCount struct {
	bucket uint32
	n      uint64
}

// subBits: each power of two above 2^subBits is split into 2^subBits buckets.
const subBits = 6

// NumBuckets is the number of buckets a Hist can use, its bound on memory.
const NumBuckets = (63-subBits)<<subBits + 2<<subBits

// bucketOf returns the bucket of v: v itself below 2^(subBits+1), else the
// power of two it falls in and the subBits bits that follow the leading one.
func bucketOf(v uint64) uint32 {
	if v < 2<<subBits {
		return uint32(v)
	}
	shift := bits.Len64(v) - 1 - subBits
	return uint32(shift<<subBits) + uint32(v>>shift)
}

// bucketRange returns the lowest value of bucket b and the number of
// values in it.
func bucketRange(b uint32) (lo, width uint64) {
	if b < 2<<subBits {
		return uint64(b), 1
	}
	shift := b>>subBits - 1
	sub := uint64(b) - uint64(shift)<<subBits
	return sub << shift, 1 << shift
}

// mid is the value a bucket stands for: the middle of its values.
func mid(b uint32) float64 {
	lo, w := bucketRange(b)
	return float64(lo) + float64(w-1)/2
}

// Add counts one duration; a negative one counts as 0.
func (h *Hist) Add(d time.Duration) {
	d = max(d, 0)
	if h.N == 0 || d < h.Min {
		h.Min = d
	}
	h.Max = max(h.Max, d)
	h.N++
	h.Sum += d
	b := bucketOf(uint64(d))
	// Gaps of a stream are alike: the bucket of the last one is the usual
	// hit, and the search is skipped.
	if h.last < len(h.counts) && h.counts[h.last].bucket == b {
		h.counts[h.last].n++
		return
	}
	i, found := slices.BinarySearchFunc(h.counts, b, func(c bucketCount, b uint32) int { return int(c.bucket) - int(b) })
	if found {
		h.counts[i].n++
	} else {
		if h.counts == nil {
			// Room for a short stream's buckets at once, rather than
			// growing through 1, 2, 4 on its first gaps.
			h.counts = make([]bucketCount, 0, 8)
		}
		h.counts = slices.Insert(h.counts, i, bucketCount{b, 1})
	}
	h.last = i
}

// Merge adds o's counts to h. Pooling a level's requests merges many
// small histograms into one: the buckets h has already are added to in
// place, and h grows (amortized, as append does) only by the buckets it
// lacks.
func (h *Hist) Merge(o *Hist) {
	if o == nil || o.N == 0 {
		return
	}
	if h.N == 0 || o.Min < h.Min {
		h.Min = o.Min
	}
	h.Max = max(h.Max, o.Max)
	h.N += o.N
	h.Sum += o.Sum
	lacks, i := 0, 0
	for _, c := range o.counts {
		for i < len(h.counts) && h.counts[i].bucket < c.bucket {
			i++
		}
		if i == len(h.counts) || h.counts[i].bucket != c.bucket {
			lacks++
		}
	}
	if lacks == 0 {
		i = 0
		for _, c := range o.counts {
			for h.counts[i].bucket != c.bucket {
				i++
			}
			h.counts[i].n += c.n
		}
		h.last = 0
		return
	}
	// Merged from the back into h's own slice, grown once: every element
	// lands at or after where it was read from.
	n := len(h.counts) + lacks
	if n > cap(h.counts) {
		grown := make([]bucketCount, len(h.counts), max(n, 2*cap(h.counts)))
		copy(grown, h.counts)
		h.counts = grown
	}
	i, j := len(h.counts)-1, len(o.counts)-1
	h.counts = h.counts[:n]
	for k := n - 1; j >= 0; k-- {
		switch {
		case i >= 0 && h.counts[i].bucket > o.counts[j].bucket:
			h.counts[k] = h.counts[i]
			i--
		case i >= 0 && h.counts[i].bucket == o.counts[j].bucket:
			h.counts[k] = bucketCount{h.counts[i].bucket, h.counts[i].n + o.counts[j].n}
			i, j = i-1, j-1
		default:
			h.counts[k] = o.counts[j]
			j--
		}
	}
	h.last = 0
}

// at returns the k-th smallest duration (0-based) in nanoseconds, as its
// bucket's middle kept within [Min, Max]; the smallest and the largest are
// exact.
func (h *Hist) at(k int64) float64 {
	switch k {
	case 0:
		return float64(h.Min)
	case h.N - 1:
		return float64(h.Max)
	}
	var seen int64
	for _, c := range h.counts {
		seen += int64(c.n)
		if k < seen {
			return min(max(mid(c.bucket), float64(h.Min)), float64(h.Max))
		}
	}
	return float64(h.Max)
}

// Percentile returns the p-th percentile (0–100) in nanoseconds, by linear
// interpolation between closest ranks as stats.Percentile does on raw
// values; NaN when empty.
func (h *Hist) Percentile(p float64) float64 {
	if h == nil || h.N == 0 {
		return math.NaN()
	}
	rank := p / 100 * float64(h.N-1)
	lo, hi := int64(math.Floor(rank)), int64(math.Ceil(rank))
	lo, hi = max(lo, 0), min(hi, h.N-1)
	a := h.at(lo)
	if hi == lo {
		return a
	}
	return a + (h.at(hi)-a)*(rank-float64(lo))
}

// Stddev is the sample standard deviation (n − 1) in nanoseconds, from the
// buckets' middles around the exact mean.
func (h *Hist) Stddev() float64 {
	if h == nil || h.N < 2 {
		return 0
	}
	mean := float64(h.Sum) / float64(h.N)
	var ss float64
	for _, c := range h.counts {
		d := min(max(mid(c.bucket), float64(h.Min)), float64(h.Max)) - mean
		ss += float64(c.n) * d * d
	}
	return math.Sqrt(ss / float64(h.N-1))
}

// histJSON is a Hist on file: "buckets" holds bucket, count pairs flat.
type histJSON struct {
	N       int64    `json:"n"`
	Sum     int64    `json:"sum_ns"`
	Min     int64    `json:"min_ns"`
	Max     int64    `json:"max_ns"`
	Buckets []uint64 `json:"buckets"`
}

func (h Hist) MarshalJSON() ([]byte, error) {
	j := histJSON{N: h.N, Sum: int64(h.Sum), Min: int64(h.Min), Max: int64(h.Max), Buckets: make([]uint64, 0, 2*len(h.counts))}
	for _, c := range h.counts {
		j.Buckets = append(j.Buckets, uint64(c.bucket), c.n)
	}
	return json.Marshal(j)
}

func (h *Hist) UnmarshalJSON(b []byte) error {
	var j histJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Buckets)%2 != 0 {
		return fmt.Errorf("itl: %d bucket numbers, want bucket, count pairs", len(j.Buckets))
	}
	*h = Hist{N: j.N, Sum: time.Duration(j.Sum), Min: time.Duration(j.Min), Max: time.Duration(j.Max)}
	var total int64
	for i := 0; i < len(j.Buckets); i += 2 {
		b, n := j.Buckets[i], j.Buckets[i+1]
		if b >= NumBuckets || (len(h.counts) > 0 && uint32(b) <= h.counts[len(h.counts)-1].bucket) || n == 0 {
			return fmt.Errorf("itl: bucket %d (count %d) out of range or order", b, n)
		}
		h.counts = append(h.counts, bucketCount{uint32(b), n})
		total += int64(n)
	}
	if total != h.N {
		return fmt.Errorf("itl: buckets count %d, n says %d", total, h.N)
	}
	return nil
}
