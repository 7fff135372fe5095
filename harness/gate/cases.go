package gate

import "sort"

// Pairing by fixture case: how each case fared on each side, which cases
// newly fail, and when the sides asked enough of the same cases for the
// pairing to hold.

// tally counts failed requests of asked ones.
type tally struct{ bad, n int }

// pairable reports whether requests can be paired by case: each side asked
// cases, and at least half of each side's requests are of cases the other
// side asked too (runs that walk the same fixture do; runs of different
// fixtures, or synthetic prompts without cases, do not).
func pairable(counts [2]map[string]*tally, cases [2]map[string]bool) bool {
	for side := range 2 {
		if len(cases[side]) == 0 || cases[side][""] {
			return false
		}
		shared, all := 0, 0
		for k, tl := range counts[side] {
			all += tl.n
			if counts[1-side][k] != nil {
				shared += tl.n
			}
		}
		if 2*shared < all {
			return false
		}
	}
	return true
}

// CaseChange is how one fixture case fared on each side.
type CaseChange struct {
	Case     string
	Bad1, N1 int // failed / asked on the base
	Bad2, N2 int // on the new side
}

// newlyFailing lists the cases that never failed on the base and failed on
// the new side, most failures first.
func newlyFailing(counts [2]map[string]*tally) []CaseChange {
	var out []CaseChange
	for k, tl := range counts[1] {
		b := counts[0][k]
		if b == nil || b.bad > 0 || tl.bad == 0 {
			continue
		}
		out = append(out, CaseChange{Case: k, Bad1: 0, N1: b.n, Bad2: tl.bad, N2: tl.n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Bad2 != out[j].Bad2 {
			return out[i].Bad2 > out[j].Bad2
		}
		return out[i].Case < out[j].Case
	})
	return out
}

// caseCounts keeps, per case asked on both sides, the counts the
// sensitivity of the paired test needs.
func caseCounts(counts [2]map[string]*tally) []CaseChange {
	var out []CaseChange
	for k, tl := range counts[0] {
		o := counts[1][k]
		if o == nil {
			continue
		}
		out = append(out, CaseChange{Case: k, Bad1: tl.bad, N1: tl.n, Bad2: o.bad, N2: o.n})
	}
	return out
}
