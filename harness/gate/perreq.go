package gate

import (
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// Figures are judged on requests when both sides recorded them and a
// request has them: every latency percentile of a metric with a
// per-request reading (itl is a gap between chunks, not a request: it
// stays with the runs; latency.go), and the proportions a request passes
// or fails (proportion.go). Their units are the metric table's.

// group is one scenario × endpoint on both sides: what a per-request test
// judges, its load levels as strata.
type group struct {
	label  string
	levels []groupLevel
}

// groupLevel is one level of a group: its cells on each side and, when
// the sides are benchfmt files, the benchmark that reported it and which
// of its units both sides have (after -filter).
type groupLevel struct {
	level sample.Level
	bench string
	cells [2]*cell
	units map[string]bool // nil: every unit
}

func (gl groupLevel) has(unit string) bool { return gl.units == nil || gl.units[unit] }

// perRequest builds the latency and quality families of groups. covered
// receives every (benchmark, unit) judged here, which the run-level family
// leaves out. It fails when a latency can be judged neither here nor over
// runs.
func perRequest(rep *Report, groups []group, j judging, covered map[recording.Key]bool) (lat, qual *family, err error) {
	lat, err = latencyFamily(rep, groups, j, covered)
	if err != nil {
		return nil, nil, err
	}
	return lat, qualityFamily(rep, groups, j, covered), nil
}

// cover marks f's unit of each benchmark judged here, as the runs family
// needs not judge it.
func cover(covered map[recording.Key]bool, benches []string, unit string) {
	for _, b := range benches {
		if b != "" {
			covered[recording.Key{Bench: b, Unit: unit}] = true
		}
	}
}

// groupLabel names a scenario × endpoint as the benchmarks do, without the
// levels it pools: "chat/endpoint=prod".
func groupLabel(scenario, endpoint string) string {
	if endpoint == "" {
		return scenario
	}
	return scenario + "/endpoint=" + sample.NameValue(endpoint)
}
