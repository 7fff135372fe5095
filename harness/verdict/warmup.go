package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/sample"
)

// Warmup is a level whose warm-up requests failed: how many of how many,
// by kind. A level whose warm-up mostly failed (Mostly) measured an
// endpoint that was not ready, or a client that could not open what the
// level asked (too many open files): its figures are no verdict.
type Warmup struct {
	Scenario, Endpoint string
	Level              sample.Level
	Sent, Failed       int
	Kinds              map[sample.ErrorKind]int
}

// Mostly is more than half of the warm-up failed.
func (w Warmup) Mostly() bool { return 2*w.Failed > w.Sent }

// Warmups are the levels of samples whose warm-up had a failure, in the
// order the samples name them.
func Warmups(samples []sample.Sample) []Warmup {
	type key struct {
		sc, ep string
		lv     sample.Level
	}
	var order []key
	by := map[key]*Warmup{}
	for i := range samples {
		s := &samples[i]
		if !s.Warmup {
			continue
		}
		k := key{s.Scenario, s.Endpoint, s.Level}
		w := by[k]
		if w == nil {
			w = &Warmup{Scenario: s.Scenario, Endpoint: s.Endpoint, Level: s.Level, Kinds: map[sample.ErrorKind]int{}}
			by[k] = w
			order = append(order, k)
		}
		w.Sent++
		if !s.OK() {
			w.Failed++
			w.Kinds[s.ErrKind]++
		}
	}
	var out []Warmup
	for _, k := range order {
		if w := by[k]; w.Failed > 0 {
			out = append(out, *w)
		}
	}
	return out
}

// String is the warning under the table: the level, the share failed,
// the kinds most frequent first, and whether the level is judged.
func (w Warmup) String() string {
	kinds := make([]sample.ErrorKind, 0, len(w.Kinds))
	for k := range w.Kinds {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b sample.ErrorKind) int {
		return cmp.Or(cmp.Compare(w.Kinds[b], w.Kinds[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, w.Kinds[k])
	}
	judged := "its measured requests are judged"
	if w.Mostly() {
		judged = "most of it failed, so the level is no verdict"
	}
	return fmt.Sprintf("%s/%s/%s: %d of %d warm-up requests failed (%s): %s",
		escape.Text(w.Scenario), escape.Text(w.Endpoint), escape.Text(string(w.Level)), w.Failed, w.Sent, strings.Join(parts, ", "), judged)
}
