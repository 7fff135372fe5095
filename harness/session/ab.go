package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
)

// AB is an interleaved A/B run (llmsla ab): a scenario's cases sent to
// two endpoints in the same time window, each case to both in pairs whose
// order is drawn at random, Runs runs of N pairs at each level.
type AB struct {
	Base, Candidate string // endpoint names
	Levels          []load.Pacer
	Runs, N, Warmup int
	MaxTokens       int // 0: the scenario's on the base endpoint
	Seed            uint64
}

// Check refuses an A/B run that cannot be judged, naming the flags.
func (o AB) Check() error {
	if o.N < 1 || o.Runs < 2 || o.Warmup < 0 || o.MaxTokens < 0 {
		return fmt.Errorf("-n %d, -count %d, -warmup %d, -max-tokens %d: want -n ≥ 1, -count ≥ 2 (drift between runs is measured from them), -warmup ≥ 0 and -max-tokens ≥ 0", o.N, o.Runs, o.Warmup, o.MaxTokens)
	}
	return nil
}

// AB sends an interleaved run of sc and returns each endpoint's samples.
// Every run of a level is a level to the session's observers, so that an
// A/B run is guarded, shown, read on the servers' side, judged and
// recorded as a bench's levels are; its samples carry each endpoint's
// name, and the level names both (base+candidate).
func (s *Session) AB(ctx context.Context, sc Scenario, o AB) (base, cand []sample.Sample, err error) {
	var arms [2]load.Arm
	for i, name := range []string{o.Base, o.Candidate} {
		ep, c, ok := s.Endpoint(name)
		if !ok {
			return nil, nil, fmt.Errorf("endpoint %q is not in %s (have: %s)", name, s.cfg.Source, strings.Join(s.cfg.EndpointNames(), ", "))
		}
		if u, unfit := Unfit(sc, ep); unfit {
			// Before any request: its API cannot serve the scenario, and
			// every request of that side would fail as the other's did not.
			return nil, nil, fmt.Errorf("%s: an A/B run asks both endpoints the same requests", u)
		}
		arms[i] = load.Arm{Name: ep.Name, Doer: c}
	}
	cases, fopts, err := s.Cases(sc)
	if err != nil {
		return nil, nil, err
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = s.cfg.Scenario(sc.Name, o.Base).MaxTokens
	}
	settings := s.cfg.Scenario(sc.Name, o.Base)
	ctx, stop := s.halt.watch(ctx)
	defer stop()
	each := func(p load.Pacer, first bool) ([]load.Option, func([]sample.Sample)) {
		lv := &observe.Level{Scenario: sc.Name, Endpoint: o.Base, Arms: []string{o.Base, o.Candidate}, Label: p.Level(),
			QualityOff: settings.QualityOff, Total: 2 * o.N, Stop: s.halt.stop}
		if first {
			lv.Total += 2 * o.Warmup
		}
		s.obs.LevelStart(ctx, lv)
		opts := []load.Option{
			load.Sink(func(smp *sample.Sample) { s.obs.Sample(lv, smp) }),
			load.Measuring(func(run string) { lv.Run = run; s.obs.Measuring(lv) }),
		}
		return opts, func(samples []sample.Sample) { s.obs.LevelEnd(context.WithoutCancel(ctx), lv, samples) }
	}
	base, cand, err = load.Interleave(ctx, arms[0], arms[1], load.InterleaveOptions{
		Scenario: sc.Name, Cases: cases, Fixture: fopts, Levels: o.Levels, Runs: o.Runs, N: o.N, Warmup: o.Warmup,
		MaxTokens: o.MaxTokens, Seed: o.Seed, Each: each,
	})
	if err == nil {
		err = s.halt.stopped()
	}
	return base, cand, err
}
