package stats

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/llmsla/llmsla/harness/sample"
)

// peakInFlight is the most requests that were in flight at one instant,
// from their [t0, t0+total) spans.
func peakInFlight(spans [][2]int64) int {
	type edge struct {
		at    int64
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s[0], +1}, edge{s[1], -1})
	}
	// At one instant an end comes before a start: a request sent as another
	// returns did not overlap it.
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta))
	})
	peak, n := 0, 0
	for _, e := range edges {
		n += e.delta
		peak = max(peak, n)
	}
	return peak
}

// loadWarnings says when a run did not put on the load its level names:
// a concurrency of 16 with 5 requests measured ran 5 at most, and its
// figures are those of 5 streams, not 16. Each run pooled here (the
// -count repetitions of a benchmark each are one) is judged on its own.
func (st *Stats) loadWarnings(runs map[string]*run) {
	c := st.Level.Concurrency()
	fewest := -1
	for _, r := range runs {
		if fewest < 0 || r.sent < fewest {
			fewest = r.sent
		}
	}
	if c <= 1 || fewest < 0 || fewest >= c {
		return
	}
	st.Warnings = append(st.Warnings, fmt.Sprintf(
		"%s with runs of %d measured requests: at most %d were in flight at once, so these figures are not of that load",
		st.Level, fewest, st.PeakInFlight))
}

// spanOf is a sample's [t0, t0+total) on the monotonic clock as read back
// from a file (wall clock there, which is fine within one run).
func spanOf(s *sample.Sample) [2]int64 {
	return [2]int64{s.Start.UnixNano(), s.End().UnixNano()}
}
