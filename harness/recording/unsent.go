package recording

import (
	"fmt"

	"golang.org/x/perf/benchfmt"
)

// UnitUnsent marks the benchmark result of a run that sent nothing: one
// of a level's -count repetitions left once the runs before it decided
// every objective (stop: decided). go test prints a result for every
// repetition, so the run reports this unit alone (value 1); it is not a
// run: llmsla bench does not record it, and a reader drops it, so that
// the benchmark's runs are the runs its samples hold.
const UnitUnsent = "unsent-decided"

// Unsent reports whether res is a run that sent nothing (UnitUnsent),
// and what makes it unusable: another figure beside the mark.
func Unsent(res *benchfmt.Result) (unsent bool, bad string) {
	for _, v := range res.Values {
		if UnitOf(v) == UnitUnsent {
			unsent = true
		}
	}
	if !unsent {
		return false, ""
	}
	for _, v := range res.Values {
		if u := UnitOf(v); u != UnitUnsent && u != "ns/op" {
			file, line := res.Pos()
			return true, fmt.Sprintf("%s:%d: %s holds %s beside %s: a run that sent nothing has no figures; re-record it", file, line, res.Name, u, UnitUnsent)
		}
	}
	return true, ""
}
