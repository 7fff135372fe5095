package gate

import (
	"fmt"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// Gate compares new against base and reports regressions. It returns an
// error wrapping recording.ErrUnusable when no judgement can be made.
//
// Figures the samples files beside both sources can answer (see
// recording.Source) are judged on requests, in the latency and quality families;
// every other figure, and all of them when a side has no samples, over
// runs.
func Gate(base, new recording.Source, opts Options) (*Report, error) {
	return gateFiles(base, new, judging{Options: opts})
}

// gateFiles is Gate as j says.
func gateFiles(base, new recording.Source, j judging) (*Report, error) {
	opts, err := defaults(j.Options)
	if err != nil {
		return nil, err
	}
	j.Options = opts
	filter, err := recording.ParseFilter(opts.Filter)
	if err != nil {
		return nil, err
	}
	sides := [2]*recording.Values{recording.NewValues(opts.MatchProcs), recording.NewValues(opts.MatchProcs)}
	var confs [2]recording.Config
	units, err := recording.Read([]recording.Source{base, new}, filter, func(i int, res *benchfmt.Result) {
		sides[i].Add(res)
		confs[i].Add(res)
	})
	if err != nil {
		return nil, err
	}
	rep := newReport(base.Name, new.Name, opts)
	if base, new, err = compareSources(rep, base, new, confs, opts); err != nil {
		return nil, err
	}
	if err := rep.check(sides, opts); err != nil {
		return nil, err
	}
	if err := compareHealth(rep, sides, opts); err != nil {
		return nil, err
	}
	covered := map[recording.Key]bool{}
	var fams []*family
	if !opts.RunsOnly {
		rqs, err := sourceRequests(rep, base, new)
		if err != nil {
			return nil, err
		}
		var groups []group
		if rqs != nil {
			if groups, err = benchGroups(rep, [2]*requests{rqs[0], rqs[1]}, sides); err != nil {
				return nil, err
			}
		}
		if len(groups) > 0 {
			lat, qual, err := perRequest(rep, groups, j, covered)
			if err != nil {
				return nil, err
			}
			fams = append(fams, lat, qual)
		}
	}
	runs := &family{Family: Family{Name: FamilyRuns, Alpha: opts.alpha(FamilyRuns), Covers: "Mann-Whitney over runs, per (benchmark, unit) not judged on requests"}}
	runs.tests = pair(rep, sides, units, opts.AllowMissing, covered)
	if runs.tests, err = dropSparse(rep, sides, runs.tests, j.interim); err != nil {
		return nil, err
	}
	if err := checkRuns(rep, runs.tests); err != nil && !j.interim {
		return nil, err
	}
	if len(runs.tests) > 0 || len(fams) == 0 {
		fams = append(fams, runs)
	}
	finish(rep, fams, j)
	return rep, nil
}

// Check reads src as Gate reads a side — its benchmark lines, and its
// samples when it has some — and returns the number of runs of each
// benchmark (named as the gate keys it), or the error that would make Gate
// refuse src on its own: a corrupt or cut line, runs recorded twice, a
// benchmark at two GOMAXPROCS, samples not recorded with the benchmarks.
// It compares nothing; a source it accepts may still be too little for a
// comparison (too few runs), which Gate says.
func Check(src recording.Source, opts Options) (runs map[string]int, err error) {
	s, _, err := selfGroups(newReport(src.Name, src.Name, opts), src, opts)
	if err != nil {
		return nil, err
	}
	return s.Runs, nil
}

// selfGroups reads src once and matches its samples with its benchmarks,
// as both sides of a comparison with itself: what Plan and Check need.
func selfGroups(rep *Report, src recording.Source, opts Options) (*recording.Values, []group, error) {
	filter, err := recording.ParseFilter(opts.Filter)
	if err != nil {
		return nil, nil, err
	}
	s := recording.NewValues(opts.MatchProcs)
	if _, err := recording.Read([]recording.Source{src}, filter, func(_ int, res *benchfmt.Result) { s.Add(res) }); err != nil {
		return nil, nil, err
	}
	sides := [2]*recording.Values{s, s}
	warnings, err := recording.CheckProcs([2]string{rep.Base, rep.New}, sides)
	rep.Warnings = append(rep.Warnings, warnings...)
	if err != nil {
		return nil, nil, err
	}
	rqs, err := sourceRequests(rep, src)
	if err != nil || rqs == nil {
		return s, nil, err
	}
	groups, err := benchGroups(rep, [2]*requests{rqs[0], rqs[0]}, sides)
	return s, groups, err
}

// GateRequests compares two sets of per-request samples — the two endpoints
// of an interleaved A/B run (opts.AcrossEndpoints), or two runs of which
// one at least was sent by shards: every figure is judged on requests.
// Samples are matched by scenario, endpoint and level; a cell of the base
// the new side lacks is unusable input, unless opts.AllowMissing.
func GateRequests(baseName, newName string, base, new []sample.Sample, opts Options) (*Report, error) {
	opts, err := defaults(opts)
	if err != nil {
		return nil, err
	}
	rep := newReport(baseName, newName, opts)
	if opts.AcrossEndpoints {
		rep.Added = AddedTTFT(base, new)
	}
	var rqs [2]*requests
	for i, ss := range [2][]sample.Sample{base, new} {
		if opts.AcrossEndpoints {
			ss = append([]sample.Sample(nil), ss...)
			for j := range ss {
				ss[j].Endpoint = "" // the sides differ by endpoint: match the rest
			}
		}
		name := [2]string{baseName, newName}[i]
		if err := recording.CheckSamples(name, ss); err != nil {
			return nil, err
		}
		rqs[i] = groupRequests(name, ss)
	}
	groups, err := requestGroups(rep, rqs, opts.AllowMissing)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: %s and %s have no scenario and level in common", recording.ErrUnusable, baseName, newName)
	}
	j := judging{Options: opts}
	lat, qual, err := perRequest(rep, groups, j, map[recording.Key]bool{})
	if err != nil {
		return nil, err
	}
	if len(lat.tests)+len(qual.tests) == 0 {
		return nil, fmt.Errorf("%w: nothing to compare: no latency or quality figure that varies on both %s and %s (every request failed, or had the same value everywhere)", recording.ErrUnusable, baseName, newName)
	}
	finish(rep, []*family{lat, qual}, j)
	return rep, nil
}

// finish judges each family and says what the per-request tests can see.
func finish(rep *Report, fams []*family, j judging) {
	for _, f := range fams {
		f.judge(rep, j)
		rep.Compared += f.Tests
	}
	if !j.noSensitivity {
		rep.Sensitivity = sensitivity(fams, j.Options)
	}
	setBlind(rep, j.AllowBlind, j.Objective)
}

// check checks the two sides before any test (recording.CheckProcs,
// CheckCommon), their warnings into rep.
func (rep *Report) check(sides [2]*recording.Values, opts Options) error {
	names := [2]string{rep.Base, rep.New}
	for _, c := range []func() ([]string, error){
		func() ([]string, error) { return recording.CheckProcs(names, sides) },
		func() ([]string, error) { return recording.CheckCommon(names, sides, opts.AllowMissing, opts.Filter) },
	} {
		warnings, err := c()
		rep.Warnings = append(rep.Warnings, warnings...)
		if err != nil {
			return err
		}
	}
	return nil
}
