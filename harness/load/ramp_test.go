package load_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sim"
)

// perSlice counts the instants in each of k equal slices of [0, over).
func perSlice(at []time.Duration, over time.Duration, k int) []int {
	out := make([]int, k)
	for _, t := range at {
		if i := int(t * time.Duration(k) / over); i >= 0 && i < k {
			out[i]++
		}
	}
	return out
}

// askedPerSlice is what the ramp asks for in each of k slices of its Over.
func askedPerSlice(r load.Ramp, k int) []float64 {
	out := make([]float64, k)
	for i := range out {
		from, to := r.Over*time.Duration(i)/time.Duration(k), r.Over*time.Duration(i+1)/time.Duration(k)
		out[i] = r.Expected(to) - r.Expected(from)
	}
	return out
}

// TestRampSchedule: every tenth of a ramp is scheduled at the rate the
// ramp asks then — to the request for constant arrivals, within what a
// Poisson count varies by (4 sd) for Poisson ones — up or down, linear or
// exponential; its level holds what Over asks for, the last request due
// at Over.
func TestRampSchedule(t *testing.T) {
	cases := map[string]struct {
		r     load.Ramp
		exact bool
	}{
		"linear":              {load.Ramp{From: 1, To: 50, Over: 2 * time.Minute, Arrivals: load.Arrivals{Arrival: load.Constant}}, true},
		"exponential":         {load.Ramp{From: 1, To: 50, Over: 2 * time.Minute, Shape: load.Exponential, Arrivals: load.Arrivals{Arrival: load.Constant}}, true},
		"down":                {load.Ramp{From: 40, To: 4, Over: time.Minute, Arrivals: load.Arrivals{Arrival: load.Constant}}, true},
		"flat exponential":    {load.Ramp{From: 10, To: 10, Over: time.Minute, Shape: load.Exponential, Arrivals: load.Arrivals{Arrival: load.Constant}}, true},
		"poisson linear":      {load.Ramp{From: 1, To: 50, Over: 2 * time.Minute, Arrivals: load.Arrivals{Seed: 7}}, false},
		"poisson exponential": {load.Ramp{From: 1, To: 50, Over: 2 * time.Minute, Shape: load.Exponential, Arrivals: load.Arrivals{Seed: 8}}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n, _ := tc.r.Requests(tc.r.Over)
			assert.InDelta(t, tc.r.Expected(tc.r.Over), n, 1, "the level holds what the ramp asks for")
			s := tc.r.Schedule(n)
			require.True(t, slices.IsSorted(s))
			assert.InDelta(t, tc.r.Over.Seconds(), s[n-1].Seconds(), 1/tc.r.To, "the last request is due at Over")
			got, want := perSlice(s, tc.r.Over, 10), askedPerSlice(tc.r, 10)
			for i := range got {
				bound := 1.0
				if !tc.exact {
					bound = 4 * math.Sqrt(want[i])
				}
				assert.InDelta(t, want[i], got[i], bound, "slice %d of 10: %d scheduled, %.1f asked", i, got[i], want[i])
			}
		})
	}
}

// TestRampValidate: a ramp that cannot be paced is refused, naming why.
func TestRampValidate(t *testing.T) {
	ok := load.Ramp{From: 1, To: 50, Over: time.Minute}
	assert.NoError(t, ok.Validate())
	for name, tc := range map[string]struct {
		r    load.Ramp
		want string
	}{
		"from 0":      {load.Ramp{To: 5, Over: time.Minute}, "ramp from 0: want requests per second"},
		"to too high": {load.Ramp{From: 1, To: 2e6, Over: time.Minute}, "ramp to 2e+06: want requests per second, > 0 and ≤ 1000000"},
		"no over":     {load.Ramp{From: 1, To: 5}, "ramp over 0s: want a duration > 0"},
		"bad shape":   {load.Ramp{From: 1, To: 5, Over: time.Minute, Shape: "steep"}, `ramp shape "steep"`},
		"burstiness":  {load.Ramp{From: 1, To: 5, Over: time.Minute, Arrivals: load.Arrivals{Arrival: load.Gamma}}, "burstiness 0: gamma arrivals need a shape ≥ 0.01"},
	} {
		t.Run(name, func(t *testing.T) { assert.ErrorContains(t, tc.r.Validate(), tc.want) })
	}
}

// TestRampOnSimulator: a ramp sent to the simulator arrives there, second
// by second, at the rate the ramp asks for that second — linear and
// exponential, up and down, constant arrivals so that the bound is the
// pacer's and not a Poisson count's: within one request and 5% of what was
// asked — and as a whole at the rate it scheduled (the usual 2%). The
// server's reception instants are the truth.
func TestRampOnSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("12 s of ramps")
	}
	srv, c := simClient(t, sim.Config{TTFT: 20 * time.Millisecond, TPOT: 2 * time.Millisecond, OutputTokens: 4, Seed: 5})
	constant := load.Arrivals{Arrival: load.Constant}
	for _, r := range []load.Ramp{
		{From: 5, To: 40, Over: 4 * time.Second, Arrivals: constant},
		{From: 5, To: 80, Over: 4 * time.Second, Shape: load.Exponential, Arrivals: constant},
		{From: 60, To: 10, Over: 4 * time.Second, Arrivals: constant},
	} {
		t.Run(string(r.Level()), func(t *testing.T) {
			srv.Reset()
			n, _ := r.Requests(r.Over)
			samples := load.NewRunner().Run(context.Background(), c, hello(), r, n)
			require.Len(t, samples, n)
			start := samples[0].Start.Add(-samples[0].Offset) // the ramp's t = 0
			var received []time.Duration
			for _, tr := range srv.Truth() {
				received = append(received, tr.Received.Sub(start))
			}
			require.Len(t, received, n)
			got, want := perSlice(received, r.Over, 4), askedPerSlice(r, 4)
			t.Logf("%s: received per second %v, asked %.1f", r.Level(), got, want)
			for i := range got {
				assert.InDelta(t, want[i], got[i], 1+0.05*want[i], "second %d: %d received, %.1f asked", i, got[i], want[i])
			}
			slices.Sort(received)
			sent := float64(n-1) / (received[n-1] - received[0]).Seconds()
			planned := float64(n-1) / (samples[n-1].Sched - samples[0].Sched).Seconds()
			assert.InEpsilon(t, planned, sent, 0.02, "received at %.2f req/s, scheduled %.2f", sent, planned)
		})
	}
}

// TestRampShards: each of three shards ramps from From/3 to To/3 over the
// same time, on a schedule of its own; a cap with fewer slots than shards
// is refused rather than rounded up.
func TestRampShards(t *testing.T) {
	r := load.Ramp{From: 3, To: 30, Over: time.Minute, Arrivals: load.Arrivals{Seed: 1}}
	var first []time.Duration
	for i := range 3 {
		p, err := r.Split(load.Shard{I: i, N: 3})
		require.NoError(t, err)
		part := p.(load.Ramp)
		assert.Equal(t, [3]any{1.0, 10.0, time.Minute}, [3]any{part.From, part.To, part.Over})
		s := part.Schedule(10)
		assert.NotEqual(t, first, s, "shard %d's schedule is its own", i)
		first = s
	}
	r.Arrivals.MaxConcurrency = 2
	_, err := load.Shard{I: 0, N: 3}.Pacer(r)
	assert.ErrorContains(t, err, "max_concurrency 2 cannot be split over 3 shards")
}

// TestRampLevel: a ramp's level names its ends and, when exponential, its
// shape, never ending in -<digits> (read as GOMAXPROCS by benchfmt).
func TestRampLevel(t *testing.T) {
	assert.Equal(t, "ramp=1to50", string(load.Ramp{From: 1, To: 50, Over: time.Minute}.Level()))
	assert.Equal(t, "ramp=0.5to20exp", string(load.Ramp{From: 0.5, To: 20, Over: time.Minute, Shape: load.Exponential}.Level()))
}
