package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// This file is the whole of the ramp: its kind registers itself, and
// config, sharding, the warm-up and a plan ask the pacer (Splitter,
// Planner, OpenLoop).
func init() { Register(rampKind) }

// RampShape is how a ramp's rate climbs from its start to its end.
type RampShape string

// The ramp shapes, vLLM's --ramp-up-strategy values.
const (
	Linear      RampShape = "linear"      // the rate grows by the same step each second
	Exponential RampShape = "exponential" // the rate grows by the same factor each second
)

// RampShapes lists the shapes, for configuration errors.
var RampShapes = []RampShape{Linear, Exponential}

// Ramp is an open loop whose rate goes from From to To requests per second
// over Over, then holds at To: vLLM's --ramp-up-strategy, k6's
// ramping-arrival-rate, so that one level walks a server from light load
// to past what it carries. Its schedule is the arrival process of Arrivals
// run on the ramp's clock: a unit-rate schedule conditioned on its count
// (Open.Schedule), each instant u mapped to the time by which the ramp has
// asked for u requests, so that every stretch of the ramp is sent at the
// rate asked then. Its level lasts Over (Length): n = the requests Over
// holds; a soak's duration holds it at To after Over.
type Ramp struct {
	From, To float64 // requests per second at the start and at Over, > 0
	Over     time.Duration
	Shape    RampShape // Linear when empty
	Arrivals Arrivals
}

var _ OpenLoop = Ramp{}

const rampExample = "{from: 1, to: 50, over: 2m, shape: linear}"

// rampKind is ramp: one ramp, or a list of them.
var rampKind = Kind{Key: "ramp", Example: rampExample,
	Levels: func(v Value) ([]Pacer, error) { return eachLevel(v, rampExample, parseRamp) },
}

// parseRamp reads {from, to, over, shape}.
func parseRamp(v Value) (Pacer, error) {
	m, err := v.Mapping("from", "to", "over", "shape")
	if m == nil {
		return nil, err
	}
	var r Ramp
	errs := []error{err} // unknown keys, and each mistake below
	for _, k := range []string{"from", "to", "over"} {
		if _, ok := m[k]; !ok {
			errs = append(errs, v.Missing(k, rampExample))
		}
	}
	rate := func(k string, into *float64) {
		if f, ok := m[k]; ok {
			x, err := f.Number()
			if err != nil || checkRate(k, x) != nil {
				errs = append(errs, f.Errorf("%s is not a rate (want requests per second, > 0 and ≤ %d)", f, MaxRate))
			}
			*into = x
		}
	}
	rate("from", &r.From)
	rate("to", &r.To)
	if f, ok := m["over"]; ok {
		if r.Over, err = f.Duration(); err != nil {
			errs = append(errs, err)
		}
	}
	if f, ok := m["shape"]; ok {
		if r.Shape = RampShape(f.Text); !slices.Contains(RampShapes, r.Shape) {
			errs = append(errs, f.Errorf("%s is not a ramp shape (allowed: linear, exponential)", f))
		}
	}
	return r, errors.Join(errs...)
}

// Validate reports a ramp that cannot be paced.
func (r Ramp) Validate() error {
	if err := errors.Join(checkRate("ramp from", r.From), checkRate("ramp to", r.To)); err != nil {
		return err
	}
	switch {
	case r.Over <= 0:
		return fmt.Errorf("ramp over %v: want a duration > 0", r.Over)
	case r.Shape != "" && !slices.Contains(RampShapes, r.Shape):
		return fmt.Errorf("ramp shape %q: want one of %v", r.Shape, RampShapes)
	}
	return r.Arrivals.Validate()
}

// Level is ramp=<from>to<to>, exp appended for an exponential ramp ("to",
// not "-": a name ending in -<digits> is read as GOMAXPROCS by benchfmt).
func (r Ramp) Level() sample.Level {
	v := strconv.FormatFloat(r.From, 'f', -1, 64) + "to" + strconv.FormatFloat(r.To, 'f', -1, 64)
	if r.Shape == Exponential {
		v += "exp"
	}
	return sample.NewLevel("ramp", v)
}

// RateAt is the rate the ramp asks at t from its start.
func (r Ramp) RateAt(t time.Duration) float64 {
	x := min(t.Seconds()/r.Over.Seconds(), 1)
	if r.Shape == Exponential {
		return r.From * math.Pow(r.To/r.From, x)
	}
	return r.From + (r.To-r.From)*x
}

// Expected is how many requests the ramp has asked for by t: the
// integral of RateAt.
func (r Ramp) Expected(t time.Duration) float64 {
	s, over := t.Seconds(), r.Over.Seconds()
	if s > over {
		return r.Expected(r.Over) + r.To*(s-over)
	}
	g := math.Log(r.To / r.From)
	switch {
	case r.Shape == Exponential && g != 0:
		return r.From * over / g * math.Expm1(g*s/over)
	default:
		return r.From*s + (r.To-r.From)*s*s/(2*over)
	}
}

// at is the instant, in seconds from the start, by which the ramp has
// asked for u requests: the inverse of Expected.
func (r Ramp) at(u float64) float64 {
	over := r.Over.Seconds()
	if top := r.Expected(r.Over); u > top {
		return over + (u-top)/r.To
	}
	g := math.Log(r.To / r.From)
	switch {
	case r.Shape == Exponential && g != 0:
		return over / g * math.Log1p(u*g/(r.From*over))
	default:
		// The root of From·t + a·t²/2 = u, written so that a → 0 (and a
		// ramp down, a < 0) loses no precision.
		a := (r.To - r.From) / over
		return 2 * u / (r.From + math.Sqrt(r.From*r.From+2*a*u))
	}
}

// Schedule returns the offsets of n requests from the start of the ramp.
func (r Ramp) Schedule(n int) []time.Duration {
	out := make([]time.Duration, n)
	r.Arrivals.units(n, func(i int, u float64) { out[i] = seconds(r.at(u)) })
	return out
}

// Pace sends request i at its scheduled instant, as an open loop does.
func (r Ramp) Pace(ctx context.Context, n int, send func(i int, sched time.Time)) {
	pace(ctx, slices.All(r.Schedule(n)), r.Arrivals.MaxConcurrency, send)
}

// WithArrivals is the ramp drawn and capped as a says.
func (r Ramp) WithArrivals(a Arrivals) Pacer {
	r.Arrivals = a
	return r
}

// Split gives each shard the ramp from From/N to To/N over the same time,
// seeded apart.
func (r Ramp) Split(s Shard) (Pacer, error) {
	a, err := r.Arrivals.split(s)
	if err != nil {
		return nil, err
	}
	r.Arrivals, r.From, r.To = a, r.From/float64(s.N), r.To/float64(s.N)
	return r, nil
}

// Workers is the in-flight cap, 0 when there is none.
func (r Ramp) Workers() int { return r.Arrivals.MaxConcurrency }

// Requests is what the ramp asks for in d, at least one.
func (r Ramp) Requests(d time.Duration) (int, bool) { return atLeastOne(r.Expected(d)), true }

// Duration is when the last of n requests is due.
func (r Ramp) Duration(n int) (time.Duration, bool) { return seconds(r.at(float64(max(n, 0)))), true }

// Length is Over: a ramp's level is the ramp.
func (r Ramp) Length() time.Duration { return r.Over }
