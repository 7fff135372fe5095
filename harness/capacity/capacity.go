// Package capacity finds the most load an endpoint carries within its
// objectives (METRICS.md: capacity): the highest rate, or concurrency, at
// which every objective of a scenario holds, to a stated resolution.
//
// [Search] brackets the limit by doubling from a start until a level fails,
// then bisects between the last level that held and the first that did
// not, until they are within the resolution. A level holds only if every
// one of its repeats does, so a lucky run cannot raise the limit. The
// probe — run a level, judge its objectives — is the caller's: the go test
// glue measures a scenario there, a test can fake one.
package capacity

import (
	"context"
	"fmt"
	"math"
)

// Probe runs one load level and says whether every objective held, and if
// not, the first that failed.
type Probe func(ctx context.Context, level float64) (ok bool, why string)

// Options bound a search.
type Options struct {
	Start float64 // the first level tried, > 0
	Max   float64 // the highest level tried
	// Resolution is how close the last good and first bad levels must be:
	// relative (0.1 = 10%) for rates, and at least one step for integers.
	Resolution float64
	Repeats    int  // runs of each level; every one must hold (≥ 1)
	Integer    bool // levels are whole numbers (concurrency)
}

// Step is one level tried.
type Step struct {
	Level float64
	OK    bool
	Why   string // the first objective that failed, when not OK
}

// Result is the outcome of a search.
type Result struct {
	// Limit is the highest level that held (0: not even Start did).
	Limit float64
	// Beyond is the lowest level that failed, and Why its first failing
	// objective; Beyond is 0 when Max held (the limit is at least Max).
	Beyond float64
	Why    string
	Steps  []Step
}

// Validate reports options a search cannot use.
func (o Options) Validate() error {
	switch {
	case !(o.Start > 0) || math.IsInf(o.Start, 0):
		return fmt.Errorf("start %v: want a level > 0", o.Start)
	case !(o.Max >= o.Start):
		return fmt.Errorf("max %v: want a level ≥ start %v", o.Max, o.Start)
	// Whole levels (concurrency) run a whole number of requests in flight:
	// start 1.5 would run 1 and report 1.5.
	case o.Integer && o.Start != math.Trunc(o.Start):
		return fmt.Errorf("start %v: want a whole number (levels are requests in flight)", o.Start)
	case o.Integer && o.Max != math.Trunc(o.Max):
		return fmt.Errorf("max %v: want a whole number (levels are requests in flight)", o.Max)
	case !(o.Resolution > 0 && o.Resolution < 1):
		return fmt.Errorf("resolution %v: want a fraction between 0 and 1 (0.1 = 10%%)", o.Resolution)
	case o.Repeats < 1:
		return fmt.Errorf("repeats %d: want ≥ 1", o.Repeats)
	}
	return nil
}

// Search finds the limit. It stops early, with what it knows, when ctx is
// done.
func Search(ctx context.Context, o Options, probe Probe) (Result, error) {
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	var r Result
	try := func(x float64) bool {
		step := Step{Level: x, OK: true}
		for range o.Repeats {
			ok, why := probe(ctx, x)
			if !ok {
				step.OK, step.Why = false, why
				break
			}
		}
		r.Steps = append(r.Steps, step)
		if !step.OK {
			r.Beyond, r.Why = x, step.Why
		}
		return step.OK
	}
	// Bracket: double until a level fails or Max holds.
	lo, hi := 0.0, 0.0
	for x := o.Start; ctx.Err() == nil; x = o.round(x * 2) {
		x = math.Min(x, o.Max)
		if !try(x) {
			hi = x
			break
		}
		lo = x
		if x >= o.Max {
			r.Limit, r.Beyond, r.Why = lo, 0, ""
			return r, ctx.Err()
		}
	}
	// Bisect between the last good and the first bad level.
	for ctx.Err() == nil && lo > 0 && !o.close(lo, hi) {
		mid := o.round((lo + hi) / 2)
		if mid <= lo || mid >= hi {
			break
		}
		if try(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	// try set Beyond and Why at each failure, and hi is the last of them.
	r.Limit = lo
	return r, ctx.Err()
}

func (o Options) round(x float64) float64 {
	if o.Integer {
		return math.Round(x)
	}
	return x
}

// close reports whether lo and hi are within the resolution.
func (o Options) close(lo, hi float64) bool {
	if o.Integer && hi-lo <= 1 {
		return true
	}
	return (hi-lo)/lo <= o.Resolution
}
