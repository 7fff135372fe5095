// The gate's options as the commands that take them (gate, ab) read their
// flags.

package gate

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmsla/llmsla/harness/recording"
)

// ParseAlpha reads one -alpha into opts: a level for every family, or family=level.
func ParseAlpha(s string, opts *Options) error {
	family, val, one := strings.Cut(s, "=")
	if !one {
		val = s
	}
	a, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number: want a level such as 0.05, or family=level (latency, quality, runs)", val)
	}
	// 0 is checked here: in Options it means "the default".
	if err := CheckAlpha(a); err != nil {
		return err
	}
	if !one {
		opts.Alpha = a
		return nil
	}
	if opts.FamilyAlpha == nil {
		opts.FamilyAlpha = map[string]float64{}
	}
	opts.FamilyAlpha[family] = a
	return nil
}

// PlanFor answers llmsla gate -plan spec ("ttft-p95-ms=10%"): how many
// requests a side base's recording needs for the gate to flag that
// change, written to w.
func PlanFor(spec string, base recording.Source, opts Options, w io.Writer) error {
	unit, change, err := ParseTolerance(spec)
	if err != nil {
		return fmt.Errorf("-plan: %s", strings.Replace(err.Error(), "tolerance", "change", 1))
	}
	lines, err := Plan(base, unit, change, opts)
	if err != nil {
		return err
	}
	if err := WritePlan(w, lines, fmt.Sprintf("%s %s", unit, change)); err != nil {
		return err
	}
	runs, err := fewestRuns(base, opts)
	if err != nil {
		return err
	}
	return DefaultDesign.WritePlan(w, lines, runs)
}
