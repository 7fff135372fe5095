// Package metric is the one table of what llmsla measures: each metric's
// name, its benchmark unit, which way is better, how to read it from a
// run's [stats.Stats], and whether it can be an SLA threshold. SLA keys
// (ttft_p95_ms, accuracy_min), the "Unit … better=" lines of benchfmt,
// b.ReportMetric units, the per-request limits of goodput and the verdict
// table's columns are all derived from [Table]: a new metric is one row.
package metric

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Kind says how a metric is read and bounded.
type Kind int

const (
	// Latency is a distribution of per-request durations in milliseconds:
	// thresholds bound a percentile (ttft_p95_ms), benchmark units report
	// some percentiles (ttft-p95-ms).
	Latency Kind = iota
	// Fraction is a proportion in [0, 1]: a threshold bounds it from the
	// bad side (error_rate_max, accuracy_min), its unit is in percent.
	Fraction
	// Figure is any other number of a run, in its own unit (out-tok/s).
	Figure
	// Server is a figure only an endpoint's own timings give (Ollama's
	// load and prefill durations); it has a unit, but no reader over Stats.
	Server
	// Change is a relative change (0.5 = 50% more), shown in percent and
	// bounded by any number ≥ 0 (drift_max: 0.5).
	Change
	// Search is found by a capacity search over load levels, reported by
	// its own benchmark rather than read from one run.
	Search
)

// Metric is one row of the table.
type Metric struct {
	Name  string // the threshold key's stem: ttft, error_rate, accuracy
	Kind  Kind
	Lower bool // lower is better
	// BenchUnit is the benchmark unit of a non-latency metric (err-%,
	// out-tok/s); latency units are derived (ttft-p95-ms).
	BenchUnit string
	// Report lists the percentiles of a latency metric reported as
	// benchmark units; Bench reports a non-latency metric.
	Report []int
	Bench  bool
	// Columns lists the percentiles of a latency metric shown in the
	// verdict table; Column is the short header of another metric shown
	// there ("" = not shown).
	Columns []int
	Column  string
	// Needs says what a run must have for the metric to be measured, for
	// the line that says an objective on it was not: "two time slices …".
	Needs string
	// Threshold: the metric may be an SLA objective.
	Threshold bool
	// Signed: the figure may be negative (a change, a fit's slope or
	// intercept, a remainder); others are rejected below 0 as corrupt.
	Signed bool
	// WholeRun: the figure belongs to a scenario's whole run on an
	// endpoint, every level together (coverage), and is judged once there.
	WholeRun bool
	// SLAKey is the threshold key when it is not derived from the name:
	// memory_max_mb, its unit last as latency keys have it.
	SLAKey string

	// Dist reads a latency metric's distribution from a run.
	Dist func(*stats.Stats) stats.Summary
	// Value reads another metric from a run: the figure (a fraction for
	// Fraction metrics, NaN when not measured) and the number of values
	// behind it.
	Value func(*stats.Stats) (float64, int)
	// PerRequest reads a latency metric from one successful request, in
	// ms, so that goodput can judge each request against the objective.
	PerRequest func(*sample.Sample) (float64, bool)
	// Outcome reads a fraction metric from one request: whether the
	// request counts toward it (checked) and whether it passed — an
	// answer is right, a request did not fail — so that a gate can test
	// the proportion request by request.
	Outcome func(*sample.Sample) (checked, passed bool)
	// PerCase: the fraction is a property of the answer to a fixture case,
	// not of the load (quality); levels pool and requests pair by case.
	PerCase bool
	// Applies says whether a run has the figure at all (the open-loop
	// figures need a schedule); nil: always. A figure that does not apply
	// is not reported as a benchmark unit.
	Applies func(*stats.Stats) bool
	// Detail says what lies behind a figure that missed its objective (the
	// errors by kind, the slices compared), for the violation's line; nil
	// or "": nothing beyond the figure and its n.
	Detail func(*stats.Stats) string
}

// Percentiles are those a latency threshold may name.
var Percentiles = []int{50, 90, 95, 99}

// ByName returns the row of a metric, nil if there is none.
func ByName(name string) *Metric {
	for _, m := range Table {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// A Fig is one figure of a run: a metric, and a percentile for latencies.
type Fig struct {
	*Metric
	P int // percentile of a latency metric, 0 otherwise
}

// Unit is the figure's benchmark unit: ttft-p95-ms, err-%.
func (f Fig) Unit() string {
	if f.Kind == Latency {
		return fmt.Sprintf("%s-p%d-ms", strings.ReplaceAll(f.Name, "_", "-"), f.P)
	}
	return f.BenchUnit
}

// Key is the figure's SLA threshold key: ttft_p95_ms, error_rate_max,
// accuracy_min.
func (f Fig) Key() string {
	switch {
	case f.SLAKey != "":
		return f.SLAKey
	case f.Kind == Latency:
		return fmt.Sprintf("%s_p%d_ms", f.Name, f.P)
	case f.Lower:
		return f.Name + "_max"
	default:
		return f.Name + "_min"
	}
}

// Label names the figure for people: "ttft p95", "accuracy".
func (f Fig) Label() string {
	if f.Kind == Latency {
		return fmt.Sprintf("%s p%d", strings.ReplaceAll(f.Name, "_", " "), f.P)
	}
	return strings.ReplaceAll(f.Name, "_", " ")
}

// Of reads the figure from a run: ms for latencies, a fraction for
// fractions; NaN when it was not measured. n is the number of values
// behind it.
func (f Fig) Of(st *stats.Stats) (v float64, n int) {
	switch {
	case f.Dist != nil:
		d := f.Dist(st)
		v, _ = d.At(f.P)
		return v, d.N
	case f.Value != nil:
		return f.Value(st)
	}
	return math.NaN(), 0
}

// Bench reads the figure in its benchmark unit (fractions in percent);
// ok is false when it was not measured, so that it is not reported as 0.
func (f Fig) Bench(st *stats.Stats) (float64, bool) {
	if f.Applies != nil && !f.Applies(st) {
		return 0, false
	}
	v, _ := f.Of(st)
	if f.Kind == Fraction || f.Kind == Change {
		v *= 100
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// Format writes a value of the figure as the table shows it: "712 ms",
// "95%", "4210".
func (f Fig) Format(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	switch f.Kind {
	case Latency:
		return Num(v) + " ms"
	case Fraction:
		return Pct(v)
	case Change:
		return Signed(v)
	}
	return Num(v)
}

// FormatBound writes a threshold value: "600 ms", "99%".
func (f Fig) FormatBound(v float64) string {
	switch f.Kind {
	case Latency:
		return strconv.FormatFloat(v, 'f', -1, 64) + " ms"
	case Fraction:
		return Pct(v)
	case Change:
		return Signed(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Better is "lower" or "higher", as benchfmt's Unit metadata says it.
func (f Fig) Better() string {
	if f.Lower {
		return "lower"
	}
	return "higher"
}

// Units lists every figure reported as a benchmark unit, in table order.
func Units() []Fig {
	var out []Fig
	for _, m := range Table {
		switch {
		case m.Kind == Latency:
			for _, p := range m.Report {
				out = append(out, Fig{m, p})
			}
		case m.Bench:
			out = append(out, Fig{m, 0})
		}
	}
	return out
}

// ByUnit returns the reported figure whose benchmark unit is unit.
func ByUnit(unit string) (Fig, bool) {
	for _, f := range Units() {
		if f.Unit() == unit {
			return f, true
		}
	}
	return Fig{}, false
}

// Columns lists the figures the verdict table shows, in table order.
func Columns() []Fig {
	var out []Fig
	for _, m := range Table {
		switch {
		case m.Kind == Latency:
			for _, p := range m.Columns {
				out = append(out, Fig{m, p})
			}
		case m.Column != "":
			out = append(out, Fig{m, 0})
		}
	}
	return out
}

// Shown is cols as a table of the rows sts shows them: a figure measured
// only where something is there to measure (one with Needs: JSON, tool
// calls, a prefix cache, a judge …) keeps its column when some row
// measured it, so that a table of chats is not a row of dashes for tool
// calls; the others always do. Machine formats (JSON, CSV) keep every
// column.
func Shown(cols []Fig, sts []*stats.Stats) []Fig {
	var out []Fig
	for _, c := range cols {
		if c.Needs == "" || slices.ContainsFunc(sts, func(st *stats.Stats) bool { _, ok := c.Bench(st); return ok }) {
			out = append(out, c)
		}
	}
	return out
}

// ParseKey returns the figure an SLA key names, e.g. ttft_p95_ms or
// accuracy_min; ok is false for anything else.
func ParseKey(key string) (Fig, bool) {
	for _, m := range Table {
		if !m.Threshold {
			continue
		}
		if m.Kind == Latency {
			for _, p := range Percentiles {
				if f := (Fig{m, p}); f.Key() == key {
					return f, true
				}
			}
			continue
		}
		if f := (Fig{m, 0}); f.Key() == key {
			return f, true
		}
	}
	return Fig{}, false
}

// Keys describes the allowed SLA keys, for error messages:
// "<ttft|ttfa|total|tpot|itl>_p<50|90|95|99>_ms, error_rate_max, …".
func Keys() string {
	var lat, other []string
	for _, m := range Table {
		switch {
		case !m.Threshold:
		case m.Kind == Latency:
			lat = append(lat, m.Name)
		default:
			other = append(other, Fig{m, 0}.Key())
		}
	}
	ps := make([]string, len(Percentiles))
	for i, p := range Percentiles {
		ps[i] = strconv.Itoa(p)
	}
	return fmt.Sprintf("<%s>_p<%s>_ms, %s", strings.Join(lat, "|"), strings.Join(ps, "|"), strings.Join(other, ", "))
}

// Num formats a number for a table: no decimals from 100 up, one below.
func Num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// Pct formats a fraction as a percentage, rounded to what a reader needs:
// "95%", "99.5%", never "21.666666666666668%".
func Pct(f float64) string {
	if math.IsNaN(f) {
		return "–"
	}
	v := f * 100
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64) + "%"
	}
	if math.Abs(v) >= 10 {
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(v, 'g', 2, 64) + "%"
}

// Signed formats a relative change as a signed percentage: "+50%", "-3.2%".
func Signed(f float64) string {
	if math.IsNaN(f) {
		return "–"
	}
	p := Pct(f)
	if f >= 0 {
		return "+" + p
	}
	return p
}

// Precise prints a figure — a median, an estimate — with about four
// significant digits, no exponent for everyday magnitudes: how the gate
// and compare show the values of a recording, where Num's table rounding
// would hide the change they are about.
func Precise(x float64) string {
	if x != 0 && (math.Abs(x) >= 1e7 || math.Abs(x) < 1e-3) {
		return fmt.Sprintf("%.4g", x)
	}
	s := fmt.Sprintf("%.4g", x)
	if strings.ContainsAny(s, "e") {
		return fmt.Sprintf("%.0f", x)
	}
	return s
}

// Duration rounds d to what a reader of a plan or an ETA needs: minutes
// past an hour, seconds past a minute, tenths past a second, else
// milliseconds.
func Duration(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute).String()
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}
