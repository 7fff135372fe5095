package stats

import (
	"fmt"
	"math"
	"sort"

	"github.com/llmsla/llmsla/harness/sample"
)

// MinSliceRequests is the fewest requests a time slice is judged on;
// smaller slices are merged with the next (the last with the one before),
// as METRICS.md says, so that a p95 is not the maximum of a handful.
const MinSliceRequests = 20

// Slice is one time slice of a run (METRICS.md: a fixed wall-clock window,
// a minute unless configured), or several merged: its own percentiles,
// errors and n.
type Slice struct {
	From, To  int // the slice numbers it covers
	N, Failed int
	TTFT      Summary // ms, successful requests
}

// Name names the slice as a reader counts them, from 1: "slice 3",
// "slices 4–5".
func (s Slice) Name() string {
	if s.From == s.To {
		return fmt.Sprintf("slice %d", s.From+1)
	}
	return fmt.Sprintf("slices %d–%d", s.From+1, s.To+1)
}

// ErrorRate is failed / attempted in the slice.
func (s Slice) ErrorRate() float64 { return float64(s.Failed) / float64(s.N) }

// slicer accumulates slices over a run's measured samples; the same slice
// number of repeated runs pools.
type slicer struct {
	n, failed map[int]int
	ttft      map[int][]float64
}

func (sl *slicer) add(s *sample.Sample) {
	if sl.n == nil {
		sl.n, sl.failed, sl.ttft = map[int]int{}, map[int]int{}, map[int][]float64{}
	}
	sl.n[s.Slice]++
	if !s.OK() {
		sl.failed[s.Slice]++
		return
	}
	if s.TTFT > 0 {
		sl.ttft[s.Slice] = append(sl.ttft[s.Slice], Ms(s.TTFT))
	}
}

// slices merges small slices and summarises each.
func (sl *slicer) slices() []Slice {
	nums := make([]int, 0, len(sl.n))
	for k := range sl.n {
		nums = append(nums, k)
	}
	sort.Ints(nums)
	var groups [][]int
	var cur []int
	count := 0
	for _, k := range nums {
		cur = append(cur, k)
		count += sl.n[k]
		if count >= MinSliceRequests {
			groups, cur, count = append(groups, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		if len(groups) == 0 {
			groups = append(groups, cur)
		} else {
			groups[len(groups)-1] = append(groups[len(groups)-1], cur...)
		}
	}
	out := make([]Slice, len(groups))
	for i, g := range groups {
		var ttft []float64
		for _, k := range g {
			out[i].N += sl.n[k]
			out[i].Failed += sl.failed[k]
			ttft = append(ttft, sl.ttft[k]...)
		}
		out[i].From, out[i].To, out[i].TTFT = g[0], g[len(g)-1], Describe(ttft)
	}
	return out
}

// Drift is the last slice's p95 TTFT over the first's, minus 1 (METRICS.md):
// 0.5 is 50% slower at the end. It is NaN with fewer than two slices of
// MinSliceRequests, or without a TTFT in either.
func (st *Stats) Drift() float64 {
	if len(st.Slices) < 2 {
		return math.NaN()
	}
	first, last := st.Slices[0].TTFT.P95, st.Slices[len(st.Slices)-1].TTFT.P95
	if !(first > 0) || math.IsNaN(last) {
		return math.NaN()
	}
	return last/first - 1
}
