package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/sample"
)

// Axis is a figure the Pareto front compares: its value for an endpoint
// (NaN when not measured), the per-request values behind it for the
// significance test, and which way is better.
type Axis struct {
	Label  string
	Lower  bool
	Value  func(*Entry) float64
	Values func(*Entry) []float64
	Format func(float64) string
	// Comparable says whether two endpoints' values are in the same unit
	// (costs in two currencies are not); nil: always.
	Comparable func(a, b *Entry) bool
	// Center is where the bulk of the per-request values lies (the
	// median of latencies), when the figure itself is a tail: the
	// Mann-Whitney test compares locations, so a difference counts only
	// when the tail and the center point the same way. nil: the figure
	// is its own center (a mean, a rate).
	Center func(*Entry) float64
	Role   Role
}

// Role is what an axis stands for in a choice: quality, latency or cost.
type Role string

const (
	RoleQuality Role = "quality"
	RoleLatency Role = "latency"
	RoleCost    Role = "cost"
)

// Axis returns the board's axis of the role, if some endpoint measured it.
func (b *Board) Axis(r Role) (Axis, bool) {
	for _, ax := range b.Axes {
		if ax.Role == r {
			return ax, true
		}
	}
	return Axis{}, false
}

// QualityAxes are the figures the quality axis can be: the pass rates of
// answers checked per fixture case (accuracy, judge_pass, json_valid,
// schema_valid), read from the metric table.
func QualityAxes() []string {
	var out []string
	for _, m := range metric.Table {
		if m.Kind == metric.Fraction && m.PerCase && m.Outcome != nil && !m.Lower {
			out = append(out, m.Name)
		}
	}
	return out
}

// axes are quality (accuracy, or the figure quality names), latency (ttft
// p95) and cost per 1k requests, read from the metric table where it has
// them.
func axes(quality string) []Axis {
	if quality == "" {
		quality = "accuracy"
	}
	q := metric.Fig{Metric: metric.ByName(quality)}
	ttft := metric.Fig{Metric: metric.ByName("ttft"), P: 95}
	return []Axis{
		{Label: q.Label(), Lower: q.Lower, Format: q.Format, Role: RoleQuality,
			Value:  func(e *Entry) float64 { v, _ := q.Of(e.Overall.Stats); return v },
			Values: func(e *Entry) []float64 { return perRequest(e, passed(q.Outcome)) }},
		{Label: ttft.Label(), Lower: ttft.Lower, Format: ttft.Format, Role: RoleLatency,
			Value:  func(e *Entry) float64 { v, _ := ttft.Of(e.Overall.Stats); return v },
			Values: func(e *Entry) []float64 { return perRequest(e, ttft.PerRequest) },
			Center: func(e *Entry) float64 { return e.Overall.Stats.TTFT.P50 }},
		{Label: "cost per 1k", Lower: true, Role: RoleCost,
			Format:     func(v float64) string { return Money(v) },
			Value:      func(e *Entry) float64 { return e.Overall.Cost.PerK },
			Values:     func(e *Entry) []float64 { return e.Overall.Cost.perRequest },
			Comparable: func(a, b *Entry) bool { return a.Overall.Cost.Currency == b.Overall.Cost.Currency }},
	}
}

// passed is a request's outcome on a pass rate: 1 when it passed, 0 when
// it failed, nothing when the check did not run on it.
func passed(outcome func(*sample.Sample) (checked, passed bool)) func(*sample.Sample) (float64, bool) {
	return func(s *sample.Sample) (float64, bool) {
		checked, ok := outcome(s)
		switch {
		case !checked:
			return 0, false
		case ok:
			return 1, true
		}
		return 0, true
	}
}

// perRequest reads f from every measured successful request of e.
func perRequest(e *Entry, f func(*sample.Sample) (float64, bool)) []float64 {
	var out []float64
	for i := range e.measured {
		s := &e.measured[i]
		if !s.Measured() || !s.OK() {
			continue
		}
		if v, ok := f(s); ok {
			out = append(out, v)
		}
	}
	return out
}

// Show is the endpoint's figure with its unit: "206 ms", "75%", "0.0123 USD".
func (ax Axis) Show(e *Entry) string {
	s := ax.Format(ax.Value(e))
	if ax.Role == RoleCost {
		s += " " + e.Overall.Cost.Currency
	}
	return s
}

// Outcome is how two endpoints compare on one axis.
type Outcome int

const (
	Unknown Outcome = iota // not measured on one side, or not comparable
	Worse
	Tied // the difference is not significant
	Better
)

// Compare says how a fares against b on the axis: Better or Worse only
// when the figure says so, its center agrees, and the Mann-Whitney U test
// on the per-request values rejects "same distribution" at alpha; Tied
// otherwise.
func (ax Axis) Compare(a, b *Entry, alpha float64) Outcome {
	va, vb := ax.Value(a), ax.Value(b)
	if math.IsNaN(va) || math.IsNaN(vb) || (ax.Comparable != nil && !ax.Comparable(a, b)) {
		return Unknown
	}
	if va == vb || !Significant(ax.Values(a), ax.Values(b), alpha) {
		return Tied
	}
	if ax.Center != nil {
		ca, cb := ax.Center(a), ax.Center(b)
		if ca == cb || (ca < cb) != (va < vb) {
			return Tied // the tail and the bulk disagree: no ranking
		}
	}
	if (va < vb) == ax.Lower {
		return Better
	}
	return Worse
}

// Significant reports whether two sets of per-request values differ at
// alpha by the Mann-Whitney U test, the one wrapper the gate uses for its
// figures over runs. A test that cannot be made (too few values) is not
// significant.
//
// The board takes requests for independent draws, which the gate does not
// (its latency tests measure the drift between runs and widen for it:
// inference.RunTailTest): a board ranks endpoints from whatever recording
// it is given, of one run an endpoint as often as of ten, and with one run
// the drift cannot be measured: a ranking that waited for it would rank
// nothing. So a
// difference the board calls significant may be the machine's drift
// between the times two endpoints were measured; its rankings describe one
// recording, and a decision between two endpoints goes through llmsla ab,
// which interleaves them so that drift falls on both alike, and the gate.
func Significant(a, b []float64, alpha float64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	_, _, p := inference.MannWhitney(a, b)
	return !math.IsNaN(p) && p < alpha
}

// compare chooses the axes some endpoint measured, then marks who
// dominates whom and ranks the endpoints on each axis.
func (b *Board) compare(quality string) {
	for _, ax := range axes(quality) {
		measured := 0
		for _, e := range b.Endpoints {
			if !math.IsNaN(ax.Value(e)) {
				measured++
			}
		}
		if measured == 0 {
			b.NotCompared = append(b.NotCompared, ax.Label+": "+notMeasuredWhy(ax, b))
			continue
		}
		b.Axes = append(b.Axes, ax)
	}
	for _, e := range b.Endpoints {
		for _, o := range b.Endpoints {
			if o == e {
				continue
			}
			if better, ok := b.dominates(o, e); ok {
				e.DominatedBy = append(e.DominatedBy, Domination{By: o.Name, Better: better})
			}
		}
		e.Pareto = len(e.DominatedBy) == 0
	}
	for _, ax := range b.Axes {
		b.Ranks = append(b.Ranks, b.rank(ax))
	}
}

// dominates reports whether a dominates b (METRICS.md): at least as good on
// every compared figure, significantly better on at least one, which it
// returns. A figure not measured on either side is not "as good": nothing
// is dominated on a figure nobody measured for it. Nor is an endpoint
// dominated by one that did not run every scenario and level it ran: the
// other's figures pool less (often lighter) load.
func (b *Board) dominates(a, o *Entry) ([]string, bool) {
	if len(b.Axes) == 0 || !ranAll(a, o) {
		return nil, false
	}
	var better []string
	for _, ax := range b.Axes {
		switch ax.Compare(a, o, b.PairAlpha()) {
		case Unknown, Worse:
			return nil, false
		case Better:
			better = append(better, ax.Label)
		}
	}
	return better, len(better) > 0
}

// ranAll reports whether a ran every scenario and level o ran.
func ranAll(a, o *Entry) bool {
	for i, r := range o.Scenarios {
		ra := a.Scenarios[i]
		switch {
		case r.Stats.Attempted == 0:
			continue // o did not run it
		case ra.Stats.Attempted == 0:
			return false
		}
		for _, l := range ra.Missing {
			if !slices.Contains(r.Missing, l) {
				return false // a missed a level o ran
			}
		}
	}
	return true
}

func notMeasuredWhy(ax Axis, b *Board) string {
	if ax.Role == RoleCost && len(b.Endpoints) > 0 {
		return "not compared (" + b.Endpoints[0].Overall.Cost.Why + ")"
	}
	return "not compared (no endpoint measured it)"
}

// Ranking is the endpoints in order on one axis, best first; Tied[i]
// says whether Order[i] and Order[i+1] are tied, Unknown[i] whether they
// cannot be compared (costs in two currencies): then neither is ranked
// above the other, nor tied.
type Ranking struct {
	Axis        Axis
	Order       []*Entry
	Tied        []bool
	Unknown     []bool
	NotMeasured []string
}

func (b *Board) rank(ax Axis) Ranking {
	r := Ranking{Axis: ax}
	for _, e := range b.Endpoints {
		if math.IsNaN(ax.Value(e)) {
			r.NotMeasured = append(r.NotMeasured, e.Name)
			continue
		}
		r.Order = append(r.Order, e)
	}
	sort.SliceStable(r.Order, func(i, j int) bool {
		vi, vj := ax.Value(r.Order[i]), ax.Value(r.Order[j])
		if ax.Lower {
			return vi < vj
		}
		return vi > vj
	})
	for i := 0; i+1 < len(r.Order); i++ {
		out := ax.Compare(r.Order[i], r.Order[i+1], b.PairAlpha())
		r.Tied = append(r.Tied, out == Tied || out == Worse)
		r.Unknown = append(r.Unknown, out == Unknown)
	}
	return r
}

// String is the ranking as a line, best first: "ttft p95: fast 21 ms,
// then slow 206 ms ≈ worse 212 ms" ("≈": the difference is not
// significant, so the two are not ranked; "?": the two cannot be
// compared, e.g. costs in two currencies).
func (r Ranking) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s:", r.Axis.Label)
	for i, e := range r.Order {
		if i > 0 {
			switch {
			case r.Unknown[i-1]:
				s.WriteString(" ?")
			case r.Tied[i-1]:
				s.WriteString(" ≈")
			default:
				s.WriteString(", then")
			}
		}
		fmt.Fprintf(&s, " %s %s", e.Name, r.Axis.Show(e))
	}
	if len(r.NotMeasured) > 0 {
		fmt.Fprintf(&s, "; not measured: %s", strings.Join(r.NotMeasured, ", "))
	}
	return s.String()
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// PairAlpha is the level each comparison of two endpoints is made at:
// Alpha over the pairs of endpoints (Bonferroni), so that the chance of
// calling any endpoint better than another when none differs stays under
// Alpha on each figure, however many endpoints there are.
func (b *Board) PairAlpha() float64 {
	n := len(b.Endpoints)
	return b.Alpha / float64(max(1, n*(n-1)/2))
}

// alphaText says at which level differences are significant: "α=0.05"
// with two endpoints, "α=0.05 over the 3 pairs of endpoints (0.0167 a
// pair, Bonferroni)" with more.
func (b *Board) alphaText() string {
	n := len(b.Endpoints)
	if pairs := n * (n - 1) / 2; pairs > 1 {
		return fmt.Sprintf("α=%g over the %d pairs of endpoints (%.3g a pair, Bonferroni)", b.Alpha, pairs, b.PairAlpha())
	}
	return fmt.Sprintf("α=%g", b.Alpha)
}
