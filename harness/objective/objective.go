// Package objective judges runs: the fourth stage of llmsla's pipeline.
//
// An objective is data (k6's thresholds): a [Threshold] is parsed once from
// an SLA key and value (ttft_p95_ms: 600, accuracy_min: 0.9), the figure it
// bounds taken from the metric table, and checked against a run's Stats;
// [Objectives] are the thresholds of one scenario on one endpoint. They
// also judge single requests ([Objectives.Good]), which is what goodput
// counts. A [Verdict] is the outcome of one run, and [Evaluate] is a pure
// view over samples: the verdict table, a model-selection report and a
// shard merge each call it on the samples they pooled.
package objective

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Threshold is one objective: a figure and its bound. A latency threshold
// is an upper bound on a percentile in milliseconds; a fraction threshold
// bounds a proportion in [0, 1] from the bad side.
type Threshold struct {
	metric.Fig
	Value float64 // ms for latencies, a fraction for fractions
	// Turn is the first turn of a conversation a turn_ objective bounds
	// (turns.go), 0 for any other.
	Turn int
	// K is the tries of each case case_pass_min judges (cases.go; Value
	// is then the share of them a case must pass), 0 for any other.
	K int
}

// Key is the threshold's key as written in the SLA file
// (turn_ttft_p95_ms.5 for a turn's).
func (th Threshold) Key() string {
	if th.Turn > 0 {
		return fmt.Sprintf("turn_%s.%d", th.Fig.Key(), th.Turn)
	}
	return th.Fig.Key()
}

// String is the objective as a reader checks it: "ttft p95 ≤ 600 ms",
// "accuracy ≥ 90%".
func (th Threshold) String() string {
	if th.K > 0 {
		return th.Label() + ": " + th.caseText()
	}
	op := "≥"
	if th.Lower {
		op = "≤"
	}
	return fmt.Sprintf("%s %s %s", th.Label(), op, th.FormatBound(th.Value))
}

// Parse parses one SLA key and value.
func Parse(key string, value float64) (Threshold, error) {
	if math.IsNaN(value) || math.IsInf(value, 0) || value < 0 {
		return Threshold{}, fmt.Errorf("%s: %v is not a threshold (want a number ≥ 0)", key, value)
	}
	f, ok := metric.ParseKey(key)
	if !ok {
		return Threshold{}, fmt.Errorf("%s: unknown metric (allowed: %s, turn_ttft_p<50|90|95|99>_ms: {turn: ms})", key, metric.Keys())
	}
	if f.Name == "case_pass" {
		return Threshold{}, fmt.Errorf("%s: %v: want {k: N, pass: M}, e.g. {k: 3, pass: 3} (every case right each of 3 tries)", key, value)
	}
	if f.Kind == metric.Fraction && value > 1 {
		return Threshold{}, fmt.Errorf("%s: %v is not a fraction (want 0 to 1, e.g. 0.99)", key, value)
	}
	return Threshold{Fig: f, Value: value}, nil
}

// Objectives are the thresholds of one scenario on one endpoint.
type Objectives []Threshold

// ParseMap parses a key → value map into objectives, in key order.
func ParseMap(m map[string]float64) (Objectives, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var o Objectives
	for _, k := range keys {
		th, err := Parse(k, m[k])
		if err != nil {
			return nil, err
		}
		o = append(o, th)
	}
	return o.sorted(), nil
}

// sorted orders o as the metric table does (latencies, then errors, then
// quality), each metric's percentiles in order, so that a list of
// objectives reads the same wherever it is printed.
func (o Objectives) sorted() Objectives {
	rank := func(th Threshold) int {
		return (slices.Index(metric.Table, th.Metric)*100+th.P)*(sample.MaxTurns+1) + th.Turn
	}
	slices.SortStableFunc(o, func(a, b Threshold) int { return rank(a) - rank(b) })
	return o
}

// MustParse is ParseMap for built-in objectives, which cannot be wrong.
func MustParse(m map[string]float64) Objectives {
	o, err := ParseMap(m)
	if err != nil {
		panic(err)
	}
	return o
}

// Set returns o with th in place of any threshold with the same key.
func (o Objectives) Set(th Threshold) Objectives {
	out := make(Objectives, 0, len(o)+1)
	for _, x := range o {
		if x.Key() != th.Key() {
			out = append(out, x)
		}
	}
	return append(out, th).sorted()
}

// Has reports whether o bounds the metric named name.
func (o Objectives) Has(name string) bool {
	for _, th := range o {
		if th.Name == name {
			return true
		}
	}
	return false
}

// Minimums are the quality objectives a run gets for every check that ran
// on its answers, unless its SLA names that key itself (a lower value, or
// 0 to accept anything, is a choice the file states): valid JSON in 99% of
// answers (the seed articles' operational threshold), valid against the
// schema in 99%, and 90% of answers right; of a tool case's answers,
// valid calls in 99% and the expected call in 90%, as JSON and accuracy;
// 90% passed by the judge where one judged them. A fast endpoint that
// answers wrong must fail without anyone having thought to ask.
var Minimums = MustParse(map[string]float64{"json_valid_min": 0.99, "schema_valid_min": 0.99, "accuracy_min": 0.90,
	"tool_valid_min": 0.99, "tool_match_min": 0.90, "judge_pass_min": 0.90})

// Agreement is the objective a run gets when the server timed its
// requests' first tokens, unless its SLA names the key: the client's TTFT
// within what the server's histogram allows (ttft_gap_max: 0), so that a
// client and a server that disagree fail out loud. Not when the histogram
// counted more requests than the run sent: then it times someone else's
// too; nor on fewer than AgreementMinN readings.
var Agreement = MustParse(map[string]float64{"ttft_gap_max": 0})

// AgreementMinN is the TTFT readings the Agreement is implied from: the
// p95 of fewer than 20 is their largest, which one late read decides
// (.ci/run beside two CPU-bound processes: one of two requests read 1.4
// ms late, a level of 2 failed ttft gap 0.6 ms). A ttft_gap_max the SLA
// names is judged at any n.
const AgreementMinN = 20

// Implied returns o with the Minimums of every quality check that ran in
// st and the Agreement of a server that timed st's requests, where o does
// not bound them.
func (o Objectives) Implied(st *stats.Stats) Objectives {
	out := o
	for _, th := range Minimums {
		if _, n := th.Of(st); n > 0 && !o.Has(th.Name) {
			out = append(slices.Clip(out), th)
		}
	}
	if srv := st.Server; srv != nil && srv.TTFT.N() > 0 && srv.TTFT.N() <= float64(srv.Sent) && st.TTFT.N >= AgreementMinN {
		for _, th := range Agreement {
			if !o.Has(th.Name) {
				out = append(slices.Clip(out), th)
			}
		}
	}
	return out.sorted()
}

// Violation is a threshold a run did not meet.
type Violation struct {
	Threshold Threshold
	Got       float64 // NaN: not measured
	N         int
	Detail    string // e.g. the error counts by kind
	Turn      int    // the turn of a conversation judged apart (turns.go), 0 for the whole run
}

// String is one line a user reads in a failed test or a verdict table:
// "ttft p95 712 ms > 600 ms (n=40)", "accuracy 75% < 90% (n=40)".
func (v Violation) String() string {
	th := v.Threshold
	if th.K > 0 {
		return v.caseLine()
	}
	label := v.label()
	if math.IsNaN(v.Got) {
		s := fmt.Sprintf("%s not measured, want %s (n=%d)", label, th.String()[len(th.Label())+1:], v.N)
		if needs := th.needs(); needs != "" {
			s += ": it needs " + needs
		}
		return s
	}
	op := "<"
	if th.Lower {
		op = ">"
	}
	s := fmt.Sprintf("%s %s %s %s (n=%d", label, th.Format(v.Got), op, th.FormatBound(th.Value), v.N)
	if v.Detail != "" {
		s += "; " + v.Detail
	}
	return s + ")"
}

// Check returns the thresholds st does not meet. A figure that was not
// measured (no successful request, no quality check) is not met: an
// objective never passes on nothing.
func (o Objectives) Check(st *stats.Stats) []Violation {
	var out []Violation
	for _, th := range o {
		if th.WholeRun {
			continue // judged once over every level: CheckRuns
		}
		if th.Turn > 0 || o.replacedByTurns(th) {
			continue // judged turn by turn: checkTurns
		}
		if v, bad := checkOne(th, st); bad {
			out = append(out, v)
		}
	}
	return append(out, o.checkTurns(st)...)
}

// checkOne checks one threshold against st.
func checkOne(th Threshold, st *stats.Stats) (Violation, bool) {
	got, n := th.Of(st)
	v := Violation{Threshold: th, Got: got, N: n}
	bad := math.IsNaN(got) || th.Lower && got > th.Value || !th.Lower && got < th.Value
	if bad && th.Detail != nil {
		v.Detail = th.Detail(st)
	}
	return v, bad
}

// Good judges one successful request: it met every per-request latency
// objective (each percentile target used as a limit on the request, the
// tightest when several) and passed every quality check that ran on it.
func (o Objectives) Good(s *sample.Sample) bool {
	for _, th := range o {
		if th.PerRequest == nil || !th.Lower || !o.boundsTurn(th, s.Turn) {
			continue
		}
		if v, ok := th.PerRequest(s); ok && v > th.Value {
			return false
		}
	}
	return s.Quality.Pass()
}
