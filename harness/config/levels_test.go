package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
)

const oneEndpoint = "endpoints:\n  a: {base_url: http://x/v1, model: m}\n"

// TestLoadKeysFromRegistry: every registered kind of load level is a key
// of sla.yaml, its example a value that makes levels labelled with its
// key; an unknown key lists them.
func TestLoadKeysFromRegistry(t *testing.T) {
	for _, k := range load.Kinds() {
		t.Run(k.Key, func(t *testing.T) {
			cfg, err := LoadFile(writeConfig(t, oneEndpoint+"scenarios:\n  chat:\n    "+k.Key+": "+k.Example+"\n"))
			require.NoError(t, err, "the example of %s", k.Key)
			lvs := cfg.Scenario("chat", "a").Levels()
			require.NotEmpty(t, lvs)
			for _, lv := range lvs {
				assert.Equal(t, k.Key, lv.Pacer.Level().Labels()[0].Key)
			}
		})
	}
	_, err := LoadFile(writeConfig(t, oneEndpoint+"scenarios:\n  chat: {rates: 5}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scenarios.chat.rates: unknown key (allowed: ")
	for _, k := range load.Kinds() {
		assert.Contains(t, err.Error(), " "+k.Key+",", "the allowed keys name %s", k.Key)
	}
}

// TestLoadKeyErrors: a load key's mistakes, and levels that cannot run,
// are errors at file:line: key naming what is allowed or the bound.
func TestLoadKeyErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		scenario string
		want     []string
	}{
		"burstiness below the bound": {"{rate: 10, arrival: gamma, burstiness: 1e-300}",
			[]string{`:4: scenarios.chat.burstiness: "1e-300" is not a gamma shape (want a number ≥ 0.01;`}},
		"a day of requests": {"{rate: 0.0001, samples: 20}",
			[]string{":4: scenarios.chat.rate: rate=0.0001: 20 requests would be scheduled over 55h33m0s, more than a day (24h0m0s): raise the rate or send fewer"}},
		"a low rate named where samples was set": {"\n    rate: 0.001\n    endpoints:\n      a: {samples: 100}",
			[]string{":7: scenarios.chat.endpoints.a.samples: rate=0.001: 100 requests would be scheduled over 27h47m0s"}},
		"a soak too long to hold": {"{rate: 1000, duration: 1h}",
			[]string{":4: scenarios.chat.rate: rate=1000 over 1h0m0s would send 3600000 requests, more than 1000000: lower the rate or the duration"}},
		"cap without an open loop": {"{concurrency: 2, max_concurrency: 4}",
			[]string{":4: scenarios.chat.max_concurrency: caps an open loop: set rate: (or another open-loop level) too"}},
		"ramp mistakes placed": {"\n    ramp:\n      from: 0\n      to: 5\n      over: soon",
			[]string{`:6: scenarios.chat.ramp.from: "0" is not a rate`, `:8: scenarios.chat.ramp.over: "soon" is not a duration > 0`}},
		"ramp missing its end": {"{ramp: {from: 1, over: 2m}}",
			[]string{":4: scenarios.chat.ramp.to: missing (e.g. {from: 1, to: 50, over: 2m, shape: linear})"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := LoadFile(writeConfig(t, oneEndpoint+"scenarios:\n  chat: "+tc.scenario+"\n"))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestArrivalsReachEveryOpenLoop: the scenario's arrival, burstiness, cap
// and seed apply to every open-loop level, whichever key made it and
// wherever they were set; closed loops stay as written.
func TestArrivalsReachEveryOpenLoop(t *testing.T) {
	cfg, err := LoadFile(writeConfig(t, oneEndpoint+`scenarios:
  chat:
    arrival: gamma
    burstiness: 0.5
    seed: 7
    endpoints:
      a:
        concurrency: 2
        rate: 5
        ramp: {from: 1, to: 9, over: 10s}
        max_concurrency: 8
`))
	require.NoError(t, err)
	want := load.Arrivals{Arrival: load.Gamma, Burstiness: 0.5, MaxConcurrency: 8, Seed: 7}
	var got []load.Pacer
	for _, lv := range cfg.Scenario("chat", "a").Levels() {
		got = append(got, lv.Pacer)
	}
	assert.Equal(t, []load.Pacer{load.Closed(2), load.Open{Rate: 5}.WithArrivals(want), load.Ramp{From: 1, To: 9, Over: 10 * time.Second, Arrivals: want}}, got)
}

// TestLevelPlan: what a plan reads of each level before the run — how
// many requests, over what time, and how long they take — for a count, a
// soak and a ramp; a closed loop's time is the server's to say.
func TestLevelPlan(t *testing.T) {
	ramp := load.Ramp{From: 1, To: 9, Over: 10 * time.Second}
	for name, tc := range map[string]struct {
		sc       Scenario
		n        int
		span     time.Duration
		expected time.Duration // 0: not known
	}{
		"closed loop":         {Scenario{Samples: 20, Concurrency: []int{4}}, 20, 0, 0},
		"open loop":           {Scenario{Samples: 20, Rates: []float64{4}}, 20, 0, 5 * time.Second},
		"open soak":           {Scenario{Samples: 20, Duration: time.Minute, Rates: []float64{4}}, 240, time.Minute, time.Minute},
		"closed soak":         {Scenario{Samples: 20, Duration: time.Minute, Concurrency: []int{4}}, MaxSamples, time.Minute, time.Minute},
		"ramp: its own count": {Scenario{Samples: 20, Loads: []load.Pacer{ramp}}, 50, 10 * time.Second, 10 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			lv := tc.sc.Levels()[0]
			n := tc.sc.Requests(lv)
			assert.Equal(t, tc.n, n)
			assert.Equal(t, tc.span, tc.sc.Span(lv))
			d, ok := tc.sc.Expected(lv, n)
			assert.Equal(t, tc.expected != 0, ok)
			assert.InDelta(t, tc.expected, d, float64(time.Millisecond))
		})
	}
	// llmsla bench -n 5 at rate 0.0001 (issue 23): 14 h, said before the
	// run; 20 requests are more than a day, refused.
	sc := Scenario{Rates: []float64{0.0001}}
	lv := sc.Levels()[0]
	d, _ := sc.Expected(lv, 5)
	assert.Equal(t, 50000*time.Second, d)
	assert.NoError(t, sc.CheckExpected(lv, 5))
	err := sc.CheckExpected(lv, 20)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "rate=0.0001: 20 requests would be scheduled over 55h33m0s"), err.Error())
}
