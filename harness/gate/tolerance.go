package gate

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
)

// Tolerance is how far a median may move before the move matters. Rel is a
// fraction of the base median (0.10 = 10%), Abs is in the unit itself (1 =
// one point for a *-% unit). A zero field is not checked; when both are set
// the change must exceed both.
type Tolerance struct {
	Rel, Abs float64
}

// defaultTolerances apply to units that Options.Tolerance does not match.
// Keys are path.Match globs over unit names. Latency percentiles and
// throughput wobble by several percent between honest runs; a quality rate
// measured over a fixture set moves in whole points. A latency must also move
// by more than 1 ms: the client's own reading of an event is off by up to
// about 1 ms at p95 on a shared 2-core machine (BenchmarkMeasurementError in
// harness/stream), so a smaller move is below what the instrument resolves
// — and the p95 of 2 ms inter-token gaps on the simulator moves by 0.8 ms
// between two unchanged runs.
var defaultTolerances = map[string]Tolerance{
	"*-ms": {Rel: 0.10, Abs: 1},
	// A p99 rests on the slowest 1% of requests: two of a run of 200, and
	// a run's own p99 of 20 requests is its slowest. It moves by 10%
	// between unchanged recordings often enough to need twice the slack.
	"*-p99-ms": {Rel: 0.20, Abs: 1},
	"*/s":      {Rel: 0.10},
	"*-%":      {Abs: 1},
}

// exceeded reports whether the change from old to new is beyond t.
func (t Tolerance) exceeded(old, new float64) bool {
	d := math.Abs(new - old)
	if t.Rel > 0 && d <= t.Rel*math.Abs(old) {
		return false
	}
	if t.Abs > 0 && d <= t.Abs {
		return false
	}
	return d > 0
}

func (t Tolerance) String() string {
	switch {
	case t.Rel > 0 && t.Abs > 0:
		return fmt.Sprintf("%g%% and %g", 100*t.Rel, t.Abs)
	case t.Rel > 0:
		return fmt.Sprintf("%g%%", 100*t.Rel)
	case t.Abs > 0:
		return fmt.Sprintf("%g", t.Abs)
	}
	return "0"
}

// toleranceFor looks unit up: an exact name in over, then the longest
// matching glob in over, then the same in defaultTolerances. The longest
// pattern wins because it is the most specific ("ttft-*-ms" over "*-ms").
func toleranceFor(unit string, over map[string]Tolerance) Tolerance {
	for _, m := range []map[string]Tolerance{over, defaultTolerances} {
		if t, ok := m[unit]; ok {
			return t
		}
		best, found := "", false
		for pat := range m {
			if ok, _ := path.Match(pat, unit); ok && (!found || len(pat) > len(best) || len(pat) == len(best) && pat < best) {
				best, found = pat, true
			}
		}
		if found {
			return m[best]
		}
	}
	return Tolerance{}
}

// ParseTolerance parses the -tolerance flag syntax: "unit=10%" is relative,
// "unit=1" absolute, unit may be a glob ("ttft-*-ms=15%"); the unit is
// checked with CheckToleranceKey. The SLA file's gate.tolerance entries
// are parsed with it too.
func ParseTolerance(s string) (unit string, t Tolerance, err error) {
	unit, val, ok := strings.Cut(s, "=")
	if !ok || unit == "" || val == "" {
		return "", t, fmt.Errorf("tolerance %q: want unit=10%% (relative) or unit=1 (absolute)", s)
	}
	if err := CheckToleranceKey(unit); err != nil {
		return "", t, fmt.Errorf("tolerance %q: %w", s, err)
	}
	num, rel := strings.CutSuffix(val, "%")
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return "", t, fmt.Errorf("tolerance %q: %q is not a non-negative number", s, val)
	}
	if rel {
		return unit, Tolerance{Rel: x / 100}, nil
	}
	return unit, Tolerance{Abs: x}, nil
}

// CheckToleranceKey rejects a tolerance key — a unit, or a glob over units
// — that matches no unit of the metric table (metric.Units). A misspelt
// key (ttft-p95-msec) would leave the default tolerance in force while
// whoever wrote it believes theirs is: the gate would fail open. The error
// lists the units.
func CheckToleranceKey(key string) error {
	return checkUnitKey(key, "so no figure would be held to it")
}

// checkUnitKey rejects a unit or glob that matches no unit of the metric
// table, saying why that matters and listing the units.
func checkUnitKey(key, why string) error {
	if _, err := path.Match(key, ""); err != nil {
		return fmt.Errorf("bad unit pattern %q: %v", key, err)
	}
	var units []string
	for _, f := range metric.Units() {
		if ok, _ := path.Match(key, f.Unit()); ok {
			return nil
		}
		units = append(units, f.Unit())
	}
	return fmt.Errorf("%q matches no unit, %s; the units are %s (a glob such as ttft-*-ms matches several)",
		key, why, strings.Join(units, ", "))
}
