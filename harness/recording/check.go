package recording

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/metric"
)

// The checks below reject input that benchfmt reads without complaint but
// from which no honest decision follows. Each names the file and line.

// checkValues returns what makes res's values unusable: NaN or an infinity
// in any unit (benchmath sorts and ranks values, and a NaN makes it loop),
// a negative latency, rate or percentage, and a percentage above 100.
func checkValues(res *benchfmt.Result) []string {
	var bad []string
	file, line := res.Pos()
	for _, v := range res.Values {
		x, unit := ValueOf(v), UnitOf(v)
		var why string
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			why = "is not a number"
		case x < 0 && nonNegative(unit):
			why = "is negative"
		case x > 100 && fraction(unit):
			why = "is above 100"
		}
		if why != "" {
			bad = append(bad, fmt.Sprintf("%s:%d: %s %s %s %s; a broken measurement cannot be compared: fix the benchmark and re-record",
				file, line, res.Name, strconv.FormatFloat(x, 'g', -1, 64), unit, why))
		}
	}
	return bad
}

// nonNegative reports whether unit cannot hold a negative value: as the
// metric table says for its units (a drift or a fit's intercept can be),
// else a duration, a rate or a percentage in the project's naming.
func nonNegative(unit string) bool {
	if f, ok := metric.ByUnit(unit); ok {
		return !f.Signed
	}
	return strings.HasSuffix(unit, "-ms") || strings.HasSuffix(unit, "/s") || strings.HasSuffix(unit, "-%") ||
		unit == "ns/op" || unit == "sec/op"
}

// fraction reports whether unit is a percentage of a whole (at most 100):
// the table's fractions, else a *-% unit that is not a change.
func fraction(unit string) bool {
	if f, ok := metric.ByUnit(unit); ok {
		return f.Kind == metric.Fraction
	}
	return strings.HasSuffix(unit, "-%")
}
