package objective

import (
	"fmt"
	"math"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/stats"
)

// Confidence is the level of the interval a verdict gives each figure
// with an objective: the exact order-statistic interval of a percentile,
// Clopper–Pearson's of a rate.
const Confidence = 0.95

// Alpha is the error rate of a sequential level's decisions (stop:
// decided): the gate's default, so that stopping early is wrong no more
// often than the gate is.
const Alpha = 0.05

// Horizon is the number of requests the confidence sequences of a
// sequential level are tightest at: most levels far from their
// thresholds are decided within it, and the ones near them go on to
// their configured count.
const Horizon = 100

// Sequence is the confidence sequence a sequential level is decided and
// reported with: each decision, one side of it, at Alpha; its interval,
// both sides, at Sequence.Conf() (90%).
var Sequence = inference.NewSequence(Alpha, Horizon)

// Interval is a figure's confidence interval: [Lo, Hi] (±∞ where the
// sample is too small to bound that side) at Conf over N values;
// Sequential when it holds at every n at once (a level that stopped when
// it was decided).
type Interval struct {
	Lo, Hi     float64
	Conf       float64
	N          int
	Sequential bool
}

// State is where an objective stands given its figure's interval.
type State int

const (
	// Met: the whole interval is on the objective's good side.
	Met State = iota
	// Missed: the whole interval is on its bad side.
	Missed
	// Undecided: the interval straddles the threshold; the verdict rests
	// on the figure alone, and says so.
	Undecided
	// Unmeasured: the figure was not measured (or has no interval); it
	// fails as any unmeasured objective does.
	Unmeasured
)

func (s State) String() string {
	return [...]string{"met", "missed", "undecided", "unmeasured"}[s]
}

// IntervalOf returns the interval of th's figure in st: for a latency
// percentile from the order statistics of its values, for a fraction
// from the count behind it; ok is false for a figure with no interval (a
// histogram's percentile, a figure of another kind, nothing measured).
// Sequential gives the confidence sequence's interval instead.
func (th Threshold) IntervalOf(st *stats.Stats, sequential bool) (Interval, bool) {
	iv := Interval{Conf: Confidence, Sequential: sequential}
	if sequential {
		iv.Conf = Sequence.Conf()
	}
	switch {
	case th.Kind == metric.Latency && th.Dist != nil:
		d := th.Dist(st)
		xs := d.Sorted()
		if len(xs) == 0 {
			return iv, false
		}
		q := float64(th.P) / 100
		lo, hi := inference.QuantileRanks(len(xs), q, Confidence)
		if sequential {
			lo, hi = Sequence.Ranks(len(xs), q)
		}
		iv.Lo, iv.Hi, iv.N = inference.Quantile(xs, lo), inference.Quantile(xs, hi), len(xs)
		return iv, true
	case th.Kind == metric.Fraction && th.Metric.Value != nil:
		got, n := th.Of(st)
		if n == 0 || math.IsNaN(got) {
			return iv, false
		}
		k := int(math.Round(got * float64(n)))
		if sequential {
			iv.Lo, iv.Hi = Sequence.Rate(k, n)
		} else {
			iv.Lo, iv.Hi = inference.ClopperPearson(k, n, Confidence)
		}
		iv.N = n
		return iv, true
	}
	return iv, false
}

// StateOf says where th stands given its figure's interval.
func (th Threshold) StateOf(iv Interval) State {
	good := func(x float64) bool { return th.Lower && x <= th.Value || !th.Lower && x >= th.Value }
	switch {
	case good(iv.Lo) && good(iv.Hi):
		return Met
	case !good(iv.Lo) && !good(iv.Hi):
		return Missed
	}
	return Undecided
}

// Decision is one objective of a verdict with its figure's interval.
type Decision struct {
	Threshold Threshold
	Got       float64 // NaN: not measured
	Interval  Interval
	State     State
}

// String is the line a reader checks: "ttft p95 450 ms [420, 480] ≤ 600
// ms: met (n=40)", "ttft p95 598 ms [571, 640] ≤ 600 ms — undecided at
// n=40".
func (d Decision) String() string {
	th := d.Threshold
	if d.State == Unmeasured {
		return fmt.Sprintf("%s %s: no interval (n=%d)", th.Label(), th.Format(d.Got), d.Interval.N)
	}
	iv := d.Interval
	s := fmt.Sprintf("%s %s %s %s", th.Label(), th.Format(d.Got), d.FormatInterval(), th.String()[len(th.Label())+1:])
	kind := ""
	if iv.Sequential {
		kind = ", sequential"
	}
	if d.State == Undecided {
		return fmt.Sprintf("%s — undecided at n=%d%s", s, iv.N, kind)
	}
	return fmt.Sprintf("%s: %s (n=%d%s)", s, d.State, iv.N, kind)
}

// Short is the decision without its threshold, for a line beside the
// objectives: "ttft p95 450 ms [420, 480] met", "accuracy 88% [80%, 93%]
// undecided".
func (d Decision) Short() string {
	th := d.Threshold
	if d.State == Unmeasured && !math.IsNaN(d.Got) {
		return th.Label() + " " + th.Format(d.Got) + " (no interval: not a rate or percentile of requests)"
	}
	if d.State == Unmeasured {
		return th.Label() + " unmeasured"
	}
	return fmt.Sprintf("%s %s %s %s", th.Label(), th.Format(d.Got), d.FormatInterval(), d.State)
}

// FormatInterval writes the interval in the figure's unit: "[571, 640]",
// "[97.1%, 99.9%]", "[571, ∞)" where a side is unbounded.
func (d Decision) FormatInterval() string {
	th := d.Threshold
	num := func(x float64) string {
		switch {
		case math.IsInf(x, 1):
			return "∞"
		case math.IsInf(x, -1):
			return "−∞"
		case th.Kind == metric.Fraction:
			return metric.Pct(x)
		}
		return metric.Num(x)
	}
	open, end := "[", "]"
	if math.IsInf(d.Interval.Lo, 0) {
		open = "("
	}
	if math.IsInf(d.Interval.Hi, 0) {
		end = ")"
	}
	return open + num(d.Interval.Lo) + ", " + num(d.Interval.Hi) + end
}

// Decide gives each objective of o its figure's interval in st and where
// it stands: a view beside Check, which judges on the figures alone.
func (o Objectives) Decide(st *stats.Stats, sequential bool) []Decision {
	out := make([]Decision, 0, len(o))
	for _, th := range o {
		if th.Turn > 0 || th.K > 0 {
			continue // a turn's figure is judged apart (turns.go), a case's consistency over the run (cases.go)
		}
		got, _ := th.Of(st)
		iv, ok := th.IntervalOf(st, sequential)
		d := Decision{Threshold: th, Got: got, Interval: iv, State: Unmeasured}
		if ok && !math.IsNaN(got) {
			d.State = th.StateOf(iv)
		}
		out = append(out, d)
	}
	return out
}

// Undecided returns the decisions of v whose intervals straddle their
// thresholds.
func (v Verdict) Undecided() []Decision {
	var out []Decision
	for _, d := range v.Decisions {
		if d.State == Undecided {
			out = append(out, d)
		}
	}
	return out
}
