package session

import (
	"context"
	"sync/atomic"

	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
)

// Repeats are the runs of one cell that a benchmark sends, go test's
// -count of them, each after its probe. Under stop: decided they decide
// together: the sequential observer keeps one tally over their measured
// requests (observe.Series), each run is sent whole, and once the runs
// sent so far decide every objective the runs left send nothing — not
// their probe either — so that the level's ceiling is count × n
// requests. A level that cannot stop early (a soak, an objective no
// request decides) sends every run. The plan counts the same
// (PlanRow.decided, RunsToDecide).
type Repeats struct {
	s       *Session
	c       Cell
	series  *observe.Series
	sent    int // measured runs sent
	decided atomic.Bool
}

// Repeat returns the count runs of c.
func (s *Session) Repeat(c Cell, count int) *Repeats {
	return &Repeats{s: s, c: c, series: &observe.Series{Runs: max(count, 1)}}
}

// together reports whether a level's count runs decide together (sent
// whole, the runs left once decided unsent), not each on its own. A
// shard's do not: the shards of a run send each level in the same slot
// (-level-every), and a shard that skipped runs would send the next
// level beside the others' last runs of this one.
func (r Run) together(count int) bool { return count > 1 && !r.Shard.On() }

// Done reports whether the runs sent have decided the cell: the runs
// left send nothing.
func (r *Repeats) Done() bool { return r.decided.Load() }

// Probe sends go test's probe before a run (Session.Probe), nothing once
// Done.
func (r *Repeats) Probe(ctx context.Context) ([]sample.Sample, error) {
	if r.Done() {
		return nil, nil
	}
	return r.s.send(ctx, r.c, 1, true, r)
}

// Measure sends the next run of n measured requests (Session.Measure),
// nothing once Done.
func (r *Repeats) Measure(ctx context.Context, n int) ([]sample.Sample, error) {
	if r.Done() {
		return nil, nil
	}
	samples, err := r.s.send(ctx, r.c, n, false, r)
	r.sent++
	return samples, err
}

// Cell is the cell the runs send.
func (r *Repeats) Cell() Cell { return r.c }

// leastSent is what a level of count runs of n measured requests sends
// under stop: decided when its first need measured requests decide it —
// as many whole runs as cover need, at most count × n; runs that decide
// alone, need requests of each — in how many runs, and whether that is
// before its count.
func (r Run) leastSent(need, n, count int) (requests, runs int, stops bool) {
	if !r.together(count) {
		return count * min(need, n), count, need < n // each run on its own
	}
	runs = (need + n - 1) / max(n, 1)
	if runs >= count {
		return count * n, count, false
	}
	return runs * n, runs, true
}
