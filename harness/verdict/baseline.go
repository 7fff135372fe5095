package verdict

import (
	"fmt"
	"maps"
	"slices"

	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/provenance"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// CheckBaseline refuses a recorded run (its benchmark file from, its
// samples file samples) that would not make a baseline the gate can
// judge against: one the gate cannot read — benchmarks and samples not
// the same runs, a corrupt line, the two records of its provenance
// disagreeing (provenance.Agree) — or with fewer than minCount runs of a
// benchmark, too few for any change to be significant, or whose client
// could not keep time (ClientBound: every later run would be held to the
// machine's figures). Whether it met its objectives is its verdicts',
// which the command prints.
func CheckBaseline(from, samples string, minCount int) error {
	counts, err := gate.Check(recording.Source{Name: from, Path: from, SamplesPath: samples}, gate.Options{})
	if err == nil && exists(samples) { // without samples, its verdicts say so
		var record sample.Provenance
		if record, err = sample.ReadProvenance([]string{samples}); err == nil {
			err = provenance.Agree("the run", from, samples, recording.ReadHeader(from), record)
		}
	}
	if err == nil {
		levels, _ := healthOf(from)
		err = ClientBound(levels)
	}
	if err != nil {
		return fmt.Errorf("not promoting %s: %w", from, err)
	}
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		if n := counts[name]; n < minCount {
			why := fmt.Sprintf("run `make bench COUNT=%d` (or llmsla bench -count %d)", minCount, minCount)
			if stoppedEarly(samples) {
				why = "its levels stopped once decided (stop: decided, -until decided), with the runs their objectives needed and no more: record the baseline's run without them"
			}
			return fmt.Errorf("%s has %s of %s, need ≥ %d: %s", from, report.Plural(n, "run", "runs"), name, minCount, why)
		}
	}
	return nil
}

// stoppedEarly reports whether the samples file holds runs that decided
// together (sample.Sample.Reps): a level of it may have fewer runs than
// its -count, by design.
func stoppedEarly(samples string) bool {
	ss, err := sample.Read(samples)
	return err == nil && slices.ContainsFunc(ss, func(s sample.Sample) bool { return s.Reps > 0 })
}
