package objective

import (
	"slices"
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
	// Decisions are the objectives with their figures' intervals (Decide):
	// an objective whose interval straddles its threshold is undecided,
	// and the reports say so beside its verdict.
	Decisions []Decision
	// Ceiling is the measured requests a level that stopped once decided
	// (stop: decided) could have sent, its runs' together; 0 for a level
	// that sends its count. Its decisions are the confidence sequence's.
	Ceiling int
	// Runs and RunsCeiling are, for a level whose repetitions decided
	// together (sample.Sample.Reps), the runs it sent and could have
	// sent; 0 otherwise.
	Runs, RunsCeiling int
}

// Saved is the measured requests a sequential level did not send.
func (v Verdict) Saved() int { return max(0, v.Ceiling-v.Stats.Attempted) }

// OK reports whether every objective was met.
func (v Verdict) OK() bool { return len(v.Violations) == 0 }

// Search names the search the run is a step of ("capacity"), "" for a run
// the SLA judges: a search's steps beyond the limit fail by design, and
// only say where the limit is.
func (v Verdict) Search() string {
	s, _ := v.Level.Get("search")
	return s
}

// Failed reports whether any verdict that the SLA judges (not a search
// step) missed an objective.
func Failed(vs []Verdict) bool {
	for _, v := range vs {
		if !v.OK() && v.Search() == "" {
			return true
		}
	}
	return false
}

// Judge summarises one run's samples and checks them against o and the
// quality minimums the checks that ran imply.
//
// Samples whose answers were not judged (quality: off, -latency-only:
// every one of the run's) have no quality to judge: their quality
// objectives are dropped, and the report says quality was not judged.
func Judge(samples []sample.Sample, o Objectives) Verdict { return JudgeServer(samples, o, nil) }

// JudgeServer is Judge with the server's own account of the level (its
// metrics scraped over these samples' runs; nil when none was read),
// which the server figures' objectives are checked against.
func JudgeServer(samples []sample.Sample, o Objectives, srv *stats.Server) Verdict {
	st := stats.Summarize(samples, o.Good)
	st.Server = srv
	if st.Attempted > 0 && st.QualityOff == st.Attempted {
		o = slices.DeleteFunc(slices.Clone(o), func(th Threshold) bool { return Minimums.Has(th.Name) })
	}
	o = o.Implied(st)
	c := ceilingOf(samples)
	return Verdict{Scenario: st.Scenario, Endpoint: st.Endpoint, Level: st.Level, Objectives: o, Stats: st, Violations: o.Check(st),
		Decisions: o.Decide(st, c.requests > 0), Ceiling: c.requests, Runs: c.runs, RunsCeiling: c.of}
}

// ceiling is what a level's samples say it could have sent.
type ceiling struct {
	requests int // measured requests
	runs, of int // runs sent and the runs it could have had, when its repetitions decided together
}

// ceilingOf is the sum over the runs of samples of the ceiling their
// measured samples carry, and, for runs that are repetitions deciding
// together (Reps), of the repetitions that sent nothing: as many runs of
// the largest ceiling as their series lacks. Samples pooled from several
// recordings (or shards) hold several series; they are counted by the
// repetition most often present (each series has its first run).
func ceilingOf(samples []sample.Sample) ceiling {
	type run struct{ ceiling, rep, reps int }
	runs := map[string]run{}
	for i := range samples {
		if s := &samples[i]; !s.Warmup && !s.Cold && s.Ceiling > runs[s.Run].ceiling {
			runs[s.Run] = run{s.Ceiling, s.Rep, s.Reps}
		}
	}
	var c ceiling
	series := map[int]int{} // repetition → runs of it present
	most, reps := 0, 0
	for _, r := range runs {
		c.requests += r.ceiling
		if r.reps > 0 {
			c.runs++
			series[r.rep]++
			reps = max(reps, r.reps)
			most = max(most, r.ceiling)
		}
	}
	if c.runs > 0 {
		n := 0
		for _, k := range series {
			n = max(n, k)
		}
		c.of = n * reps
		c.requests += (c.of - c.runs) * most
	}
	return c
}

// Lookup returns the objectives of a scenario on an endpoint.
type Lookup func(scenario, endpoint string) Objectives

// Evaluate groups samples by scenario, endpoint and level and checks each
// group against its objectives: a view over samples, whichever runs, files
// or shards they came from. Verdicts come sorted by scenario, endpoint and
// level.
func Evaluate(samples []sample.Sample, objectives Lookup) []Verdict {
	return EvaluateServer(samples, objectives, nil)
}

// Servers returns the server's own account of a level, nil when none was
// read.
type Servers func(scenario, endpoint string, level sample.Level) *stats.Server

// EvaluateServer is Evaluate with each level's server account from
// servers (nil: none).
func EvaluateServer(samples []sample.Sample, objectives Lookup, servers Servers) []Verdict {
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
		var srv *stats.Server
		if servers != nil {
			srv = servers(k.scenario, k.endpoint, k.level)
		}
		v := JudgeServer(groups[k], objectives(k.scenario, k.endpoint), srv)
		// The group names the run, even one with no measured request
		// (only its cold one), whose Stats have no labels of their own.
		v.Scenario, v.Endpoint, v.Level = k.scenario, k.endpoint, k.level
		v.Stats.Scenario, v.Stats.Endpoint, v.Stats.Level = k.scenario, k.endpoint, k.level
		out = append(out, v)
	}
	CheckRuns(out)
	return out
}

// CheckRuns judges what belongs to a scenario's whole run on an endpoint,
// every level together: it sets each verdict's Stats.Asked to the distinct
// fixture cases asked over all levels of its scenario and endpoint, and
// checks the whole-run objectives (coverage_min) once, adding a violation
// to the last level of the run. The steps of a capacity search are no part
// of it: they neither ask cases nor carry its violations, which Failed
// would not count. It returns the violations it added.
func CheckRuns(vs []Verdict) []Violation {
	type run struct{ scenario, endpoint string }
	asked := map[run]map[string]bool{}
	cases := map[run]map[string]*stats.Case{} // each case's tries over the run's levels
	points := map[run][]stats.Point{}
	lengths := map[run]map[string]bool{}
	last := map[run]int{}
	for i, v := range vs {
		if v.Search() != "" {
			continue // a capacity search's steps are judged apart (Failed)
		}
		r := run{v.Scenario, v.Endpoint}
		if asked[r] == nil {
			asked[r], lengths[r] = map[string]bool{}, map[string]bool{}
		}
		if cases[r] == nil {
			cases[r] = map[string]*stats.Case{}
		}
		for id, c := range v.Stats.Cases {
			asked[r][id] = true
			p := cases[r][id]
			if p == nil {
				p = &stats.Case{ID: id}
				cases[r][id] = p
			}
			p.Asked, p.Failed, p.Passed = p.Asked+c.Asked, p.Failed+c.Failed, p.Passed+c.Passed
		}
		if pt, ok := v.Level.Get("prompt_tokens"); ok {
			lengths[r][pt] = true
			points[r] = append(points[r], v.Stats.Points...)
		}
		last[r] = i
	}
	var added []Violation
	for i := range vs {
		v := &vs[i]
		if v.Search() != "" {
			continue
		}
		r := run{v.Scenario, v.Endpoint}
		v.Stats.Asked = len(asked[r])
		if len(lengths[r]) >= 2 {
			v.Stats.Prefill = stats.LinearFit(points[r])
		}
		if last[r] != i {
			continue
		}
		for _, th := range v.Objectives {
			if !th.WholeRun {
				continue
			}
			viol, bad := checkOne(th, v.Stats)
			if th.K > 0 {
				viol, bad = checkCases(th, cases[r])
			}
			if bad {
				v.Violations = append(v.Violations, viol)
				added = append(added, viol)
			}
		}
	}
	return added
}
