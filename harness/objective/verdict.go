package objective

import (
	"sort"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Verdict is the outcome of one scenario × endpoint × level, computed from
// its samples (pooled across repeated runs and shards).
type Verdict struct {
	Scenario   string
	Endpoint   string
	Level      sample.Level
	Objectives Objectives // what was checked
	Stats      *stats.Stats
	Violations []Violation
}

// OK reports whether every objective was met.
func (v Verdict) OK() bool { return len(v.Violations) == 0 }

// Judge summarises one run's samples and checks them against o and the
// quality minimums the checks that ran imply.
func Judge(samples []sample.Sample, o Objectives) Verdict {
	st := stats.Summarize(samples, o.Good)
	o = o.Implied(st)
	return Verdict{Scenario: st.Scenario, Endpoint: st.Endpoint, Level: st.Level, Objectives: o, Stats: st, Violations: o.Check(st)}
}

// Lookup returns the objectives of a scenario on an endpoint.
type Lookup func(scenario, endpoint string) Objectives

// Evaluate groups samples by scenario, endpoint and level and checks each
// group against its objectives: a view over samples, whichever runs, files
// or shards they came from. Verdicts come sorted by scenario, endpoint and
// level.
func Evaluate(samples []sample.Sample, objectives Lookup) []Verdict {
	type key struct {
		scenario, endpoint string
		level              sample.Level
	}
	groups := map[key][]sample.Sample{}
	var keys []key
	for _, s := range samples {
		if s.Warmup {
			continue
		}
		k := key{s.Scenario, s.Endpoint, s.Level}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.scenario != b.scenario {
			return a.scenario < b.scenario
		}
		if a.endpoint != b.endpoint {
			return a.endpoint < b.endpoint
		}
		return sample.Less(a.level, b.level)
	})
	out := make([]Verdict, 0, len(keys))
	for _, k := range keys {
		out = append(out, Judge(groups[k], objectives(k.scenario, k.endpoint)))
	}
	return out
}
