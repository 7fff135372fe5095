package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// recommend picks the cheapest (or, preferring latency, the fastest)
// endpoint that meets every objective of every scenario, and says why in
// one sentence; or says why none does. An endpoint whose API cannot
// serve some scenario of the board (Entry.NotApplicable) is not chosen
// over it, however well it met the rest. An endpoint whose difference from
// the best is not significant is tied with it: the next figure decides
// among every endpoint tied with the best, and when none does the sentence
// names them all as tied rather than pick one on noise. A figure that
// cannot be compared (not measured on one side, costs in two currencies)
// stops the choice: it is not a tie, and the sentence says what is
// missing.
func (b *Board) recommend() {
	var ok, partly []*Entry
	for _, e := range b.Endpoints {
		switch {
		case e.Meets && len(e.NotApplicable) > 0:
			partly = append(partly, e)
		case e.Meets:
			ok = append(ok, e)
		}
	}
	switch {
	case len(ok) == 0 && len(partly) > 0:
		b.Recommendation = b.unserved(partly)
		return
	case len(ok) == 0:
		b.Recommendation = b.none()
		return
	}
	switch len(ok) {
	case 1:
		e := ok[0]
		b.Recommended = e.Name
		b.Recommendation = fmt.Sprintf("Choose %s: the only endpoint that meets every objective of every scenario (%s).", e.Name, b.figures(e))
		return
	}
	order, note := b.preference()
	if len(order) == 0 {
		b.Recommendation = fmt.Sprintf("%s meet every objective of every scenario; nothing was measured to choose between them.", joinAnd(names(ok)))
		return
	}
	// Each figure of the preference in turn narrows the candidates to the
	// best and those tied with it; the first that leaves one decides.
	cands := ok
	type tie struct {
		ax      Axis
		between []*Entry
	}
	var ties []tie // one per figure that left several candidates
	for _, ax := range order {
		cands = slices.Clone(cands)
		sort.SliceStable(cands, func(i, j int) bool { return less(ax, cands[i], cands[j]) })
		best := cands[0]
		tied := []*Entry{best}
		for _, c := range cands[1:] {
			switch ax.Compare(best, c, b.PairAlpha()) {
			case Unknown:
				b.Recommendation = fmt.Sprintf("%s meet every objective of every scenario, but %s cannot be compared between %s: no endpoint is chosen%s.",
					joinAnd(names(ok)), ax.Label, unknownWhy(ax, best, c), fix(ax))
				return
			case Tied, Worse: // Worse does not happen (best sorts first); were it to, c is not beaten
				tied = append(tied, c)
			}
		}
		if len(tied) == 1 {
			next := cands[1]
			b.Recommended = best.Name
			how := "it is the " + superlative(ax)
			if len(ties) > 0 {
				with := make([]string, len(ties))
				for i, t := range ties {
					others := slices.DeleteFunc(slices.Clone(t.between), func(e *Entry) bool { return e == best })
					with[i] = joinAnd(names(others)) + " on " + t.ax.Label
				}
				how = fmt.Sprintf("it ties with %s and is better on %s", strings.Join(with, "; with "), ax.Label)
			}
			b.Recommendation = fmt.Sprintf("Choose %s: of the %d endpoints that meet every objective of every scenario, %s (%s vs %s %s)%s.",
				best.Name, len(ok), how, ax.Show(best), ax.Show(next), next.Name, note)
			return
		}
		ties = append(ties, tie{ax, tied})
		cands = tied
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Name < cands[j].Name })
	if len(cands) == len(ok) && len(ok) == 2 {
		b.Recommendation = fmt.Sprintf("%s meet every objective of every scenario and are tied: no difference in %s is significant at %s; either will do, or measure more requests%s.",
			joinAnd(names(cands)), joinAnd(labels(order)), b.alphaText(), note)
		return
	}
	b.Recommendation = fmt.Sprintf("Of the %d endpoints that meet every objective of every scenario, %s are tied: none differs significantly from the best on %s at %s; any of them will do, or measure more requests%s.",
		len(ok), joinAnd(names(cands)), joinAnd(labels(order)), b.alphaText(), note)
}

// unknownWhy says why two endpoints cannot be compared on the axis: "a and
// b (b: no price in the configuration)", "a (USD) and b (EUR)".
func unknownWhy(ax Axis, a, b *Entry) string {
	var missing []string
	for _, e := range []*Entry{a, b} {
		if !math.IsNaN(ax.Value(e)) {
			continue
		}
		why := "not measured"
		if ax.Role == RoleCost {
			why = e.Overall.Cost.Why
		}
		missing = append(missing, e.Name+": "+why)
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%s and %s (%s)", a.Name, b.Name, strings.Join(missing, "; "))
	}
	if ax.Role == RoleCost {
		return fmt.Sprintf("%s (%s) and %s (%s)", a.Name, a.Overall.Cost.Currency, b.Name, b.Overall.Cost.Currency)
	}
	return a.Name + " and " + b.Name
}

// fix says what would let the axis be compared.
func fix(ax Axis) string {
	if ax.Role == RoleCost {
		return "; price every endpoint, in one currency, or prefer latency"
	}
	return "; measure it on every endpoint"
}

// preference is the order in which figures decide between endpoints that
// all meet their objectives: the preferred one, then the other of cost and
// latency, then quality. The note says when the preferred one could not
// be used.
func (b *Board) preference() ([]Axis, string) {
	var cost, lat, quality *Axis
	for i := range b.Axes {
		ax := &b.Axes[i]
		switch ax.Role {
		case RoleCost:
			cost = ax
		case RoleLatency:
			lat = ax
		case RoleQuality:
			quality = ax
		}
	}
	note := ""
	first, second := cost, lat
	if b.Prefer == PreferLatency {
		first, second = lat, cost
	}
	if first == nil && second != nil {
		note = fmt.Sprintf("; %s was not measured, so this is by %s", b.Prefer, second.Label)
	}
	var out []Axis
	for _, ax := range []*Axis{first, second, quality} {
		if ax != nil {
			out = append(out, *ax)
		}
	}
	return out, note
}

// unserved says why none of partly, which meet every objective of the
// scenarios their APIs serve, is recommended: the board mixes endpoints
// that embed with endpoints that generate, and none serves all of it.
func (b *Board) unserved(partly []*Entry) string {
	parts := make([]string, 0, len(partly))
	for _, e := range partly {
		parts = append(parts, fmt.Sprintf("%s meets every objective of what it serves, %s not applicable", e.Name, joinAnd(e.NotApplicable)))
	}
	return fmt.Sprintf("No endpoint serves every scenario of the board (endpoints that embed beside endpoints that generate text), so none is chosen over it: %s; compare like with like (llmsla report on the runs of one kind of endpoint).", strings.Join(parts, "; "))
}

// none says why no endpoint is recommended: per endpoint, how many
// objectives failed and the first of them.
func (b *Board) none() string {
	if len(b.Endpoints) == 0 {
		return "No samples: nothing to recommend."
	}
	parts := make([]string, 0, len(b.Endpoints))
	for _, e := range b.Endpoints {
		first := ""
		if len(e.Violations) > 0 {
			first = ", e.g. " + e.Violations[0]
		}
		na := ""
		if len(e.NotApplicable) > 0 {
			na = fmt.Sprintf(" (%d not applicable: %s)", len(e.NotApplicable), joinAnd(e.NotApplicable))
		}
		parts = append(parts, fmt.Sprintf("%s misses %d%s%s", e.Name, len(e.Violations), first, na))
	}
	return fmt.Sprintf("No endpoint meets every objective of every scenario: %s.", strings.Join(parts, "; "))
}

// figures shows an endpoint's compared figures: "accuracy 100%, ttft p95
// 206 ms, cost per 1k 0.0123 USD".
func (b *Board) figures(e *Entry) string {
	parts := make([]string, 0, len(b.Axes))
	for _, ax := range b.Axes {
		parts = append(parts, ax.Label+" "+ax.Show(e))
	}
	return strings.Join(parts, ", ")
}

// less orders by the axis, best first, not measured last.
func less(ax Axis, a, b *Entry) bool {
	va, vb := ax.Value(a), ax.Value(b)
	switch {
	case math.IsNaN(va):
		return false
	case math.IsNaN(vb):
		return true
	case ax.Lower:
		return va < vb
	}
	return va > vb
}

func names(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

func labels(axes []Axis) []string {
	out := make([]string, len(axes))
	for i, ax := range axes {
		out[i] = ax.Label
	}
	return out
}

// superlative is what being first on the axis is called.
func superlative(ax Axis) string {
	switch ax.Role {
	case RoleCost:
		return "cheapest"
	case RoleLatency:
		return "fastest"
	}
	return "best on " + ax.Label
}
