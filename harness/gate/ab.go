package gate

import (
	"context"
	"fmt"
	"math/rand/v2"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// An interleaved A/B run sends the same fixture cases to two endpoints in
// the same time window, each pair of requests in random order, so that
// whatever drifts — the machine, the network, a shared server's load —
// drifts for both alike, and no stored baseline is needed. Its samples are
// gated with GateRequests: every figure on requests, paired by case.

// ABOptions describe an interleaved A/B run.
type ABOptions struct {
	Scenario string // labels the samples
	Cases    []quality.Case
	Fixture  load.FixtureOptions
	// Levels are the loads, each run Runs times with N requests to each
	// endpoint; the runs walk the fixture.
	Levels    []load.Pacer
	Runs, N   int
	Warmup    int // requests to each endpoint before a level's first run
	MaxTokens int
	// Seed fixes which endpoint of each pair goes first.
	Seed uint64
	// Sink sees every sample as it completes (to write them to a file).
	Sink func(*sample.Sample)
}

// Arm is one endpoint of an A/B run: the name its samples are labelled
// with, and what sends its requests (a *stream.Client).
type Arm struct {
	Name string
	Doer load.Doer
}

// AB runs o against base and cand and returns each one's samples. A Doer
// is told apart by the requests it gets: load.Doer is given a request, not
// its index, so the two endpoints are sent the same cases through two
// fixtures built apart, and a request is the candidate's when its messages
// are the candidate fixture's.
func AB(ctx context.Context, base, cand Arm, o ABOptions) (baseSamples, candSamples []sample.Sample, err error) {
	if o.Runs < 1 || o.N < 1 || len(o.Levels) == 0 {
		return nil, nil, fmt.Errorf("ab: want at least one level, one run and one request (have %d levels, %d runs, %d requests)", len(o.Levels), o.Runs, o.N)
	}
	if base.Name == cand.Name {
		return nil, nil, fmt.Errorf("ab: both endpoints are named %q", base.Name)
	}
	var fx [2]*load.Fixture
	for i := range fx {
		if fx[i], err = load.NewFixture(o.Cases, o.Fixture); err != nil {
			return nil, nil, err
		}
	}
	candidate := map[*openai.ChatCompletionMessage]bool{}
	for i := range fx[1].Len() {
		candidate[&fx[1].Prompt(i).Request.Messages[0]] = true
	}
	route := load.DoerFunc(func(ctx context.Context, req stream.Request) sample.Sample {
		arm := base
		if len(req.Messages) > 0 && candidate[&req.Messages[0]] {
			arm = cand
		}
		s := arm.Doer.Do(ctx, req)
		s.Endpoint = arm.Name
		return s
	})
	rng := rand.New(rand.NewPCG(o.Seed, 0xab))
	cases := fx[0].Len()
	at := 0
	for _, p := range o.Levels {
		for run := range o.Runs {
			// Slots 2k and 2k+1 ask case at+k of each endpoint, in an
			// order drawn for the pair.
			first := make([]int, o.N+o.Warmup)
			for k := range first {
				first[k] = rng.IntN(2)
			}
			start := at
			src := load.SourceFunc(func(i int) load.Prompt {
				k := i / 2
				side := first[k%len(first)] ^ (i % 2)
				return fx[side].Prompt(start + k)
			})
			warm := 0
			if run == 0 {
				warm = 2 * o.Warmup // the runner's warm-up asks slots 0, 1, …: both endpoints
			}
			opts := []load.Option{load.Warmup(warm),
				load.Tag(func(s *sample.Sample) { s.Scenario, s.FixtureCases = o.Scenario, cases })}
			if o.Sink != nil {
				opts = append(opts, load.Sink(o.Sink))
			}
			for _, s := range load.NewRunner(opts...).Run(ctx, route, load.MaxTokens(src, o.MaxTokens), p, 2*o.N) {
				if s.Endpoint == cand.Name {
					candSamples = append(candSamples, s)
				} else {
					baseSamples = append(baseSamples, s)
				}
			}
			at = (at + o.N) % cases
			if err := ctx.Err(); err != nil {
				return baseSamples, candSamples, err
			}
		}
	}
	return baseSamples, candSamples, nil
}
