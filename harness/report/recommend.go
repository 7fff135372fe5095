package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// recommend picks the cheapest (or, preferring latency, the fastest)
// endpoint that meets every objective of every scenario, and says why in
// one sentence; or says why none does. Two endpoints whose difference is
// not significant are tied: the next figure decides, and when none does
// the sentence says they are tied rather than pick one on noise.
func (b *Board) recommend() {
	var ok []*Entry
	for _, e := range b.Endpoints {
		if e.Meets {
			ok = append(ok, e)
		}
	}
	switch len(ok) {
	case 0:
		b.Recommendation = b.none()
		return
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
	first := order[0]
	sort.SliceStable(ok, func(i, j int) bool { return less(first, ok[i], ok[j]) })
	best, next := ok[0], ok[1]
	// The first figure of the preference that separates the two best.
	for _, ax := range order {
		out := ax.Compare(best, next, b.Alpha)
		if out == Worse {
			best, next = next, best
		}
		if out != Better && out != Worse {
			continue
		}
		b.Recommended = best.Name
		how := "it is the " + superlative(first)
		if ax.Label != first.Label {
			how = fmt.Sprintf("it ties with %s on %s and is better on %s", next.Name, first.Label, ax.Label)
		}
		b.Recommendation = fmt.Sprintf("Choose %s: of the %d endpoints that meet every objective of every scenario, %s (%s vs %s %s)%s.",
			best.Name, len(ok), how, ax.Show(best), ax.Show(next), next.Name, note)
		return
	}
	tied := []string{best.Name, next.Name}
	b.Recommendation = fmt.Sprintf("%s meet every objective of every scenario and are tied: no difference in %s is significant at α=%g; either will do, or measure more requests%s.",
		joinAnd(tied), joinAnd(labels(order)), b.Alpha, note)
}

// preference is the order in which figures decide between endpoints that
// all meet their objectives: the preferred one, then the other of cost and
// latency, then quality. The note says when the preferred one could not
// be used.
func (b *Board) preference() ([]Axis, string) {
	var cost, lat, quality *Axis
	for i := range b.Axes {
		ax := &b.Axes[i]
		switch {
		case ax.cost:
			cost = ax
		case ax.Lower:
			lat = ax
		default:
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
		parts = append(parts, fmt.Sprintf("%s misses %d%s", e.Name, len(e.Violations), first))
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
	switch {
	case ax.cost:
		return "cheapest"
	case ax.Lower:
		return "fastest"
	}
	return "best on " + ax.Label
}
