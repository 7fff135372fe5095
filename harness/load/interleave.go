package load

import (
	"context"
	"fmt"
	"math/rand/v2"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// An interleaved run sends the same fixture cases to two endpoints in the
// same time window, each pair of requests in random order, so that
// whatever drifts — the machine, the network, a shared server's load —
// drifts for both alike, and no stored baseline is needed (llmsla ab; the
// gate judges its samples with gate.GateRequests, paired by case).

// InterleaveOptions describe an interleaved run.
type InterleaveOptions struct {
	Scenario string // labels the samples
	Cases    []quality.Case
	Fixture  FixtureOptions
	// Levels are the loads, each run Runs times with N requests to each
	// endpoint; the runs walk the fixture.
	Levels  []Pacer
	Runs, N int
	Warmup  int // requests to each endpoint before a level's first run
	// MaxTokens caps each answer.
	MaxTokens int
	// Seed fixes which endpoint of each pair goes first.
	Seed uint64
	// Sink sees every sample as it completes (to write them to a file).
	Sink func(*sample.Sample)
	// Each, when set, is called before each run of a level (first: the
	// level's first, with its warm-up) for the runner's further options
	// (a sink, a hook as the measured requests start) and what to call
	// with the run's samples once it ended: how a session tells its
	// observers about an interleaved run as about any level.
	Each func(p Pacer, first bool) (opts []Option, end func([]sample.Sample))
}

// Arm is one endpoint of an interleaved run: the name its samples are
// labelled with, and what sends its requests (a *stream.Client).
type Arm struct {
	Name string
	Doer Doer
}

// Interleave runs o against base and cand and returns each one's samples.
// A Doer is told apart by the requests it gets: it is given a request,
// not its index, so the two endpoints are sent the same cases through two
// fixtures built apart, and a request is the candidate's when its messages
// are the candidate fixture's.
func Interleave(ctx context.Context, base, cand Arm, o InterleaveOptions) (baseSamples, candSamples []sample.Sample, err error) {
	if o.Runs < 1 || o.N < 1 || len(o.Levels) == 0 {
		return nil, nil, fmt.Errorf("interleave: want at least one level, one run and one request (have %d levels, %d runs, %d requests)", len(o.Levels), o.Runs, o.N)
	}
	if base.Name == cand.Name {
		return nil, nil, fmt.Errorf("interleave: both endpoints are named %q", base.Name)
	}
	il := &interleaved{o: o, rng: rand.New(rand.NewPCG(o.Seed, 0xab))}
	for i := range il.fx {
		if il.fx[i], err = NewFixture(o.Cases, o.Fixture); err != nil {
			return nil, nil, err
		}
	}
	route := il.router(base, cand)
	for _, p := range o.Levels {
		for run := range o.Runs {
			for _, s := range il.run(ctx, route, p, run == 0) {
				if s.Endpoint == cand.Name {
					candSamples = append(candSamples, s)
				} else {
					baseSamples = append(baseSamples, s)
				}
			}
			if err := ctx.Err(); err != nil {
				return baseSamples, candSamples, err
			}
		}
	}
	return baseSamples, candSamples, nil
}

// interleaved is an interleaved run under way: the two fixtures (the
// base's, the candidate's), where the runs are in the fixture, and the
// draw of who goes first.
type interleaved struct {
	o   InterleaveOptions
	fx  [2]*Fixture
	at  int
	rng *rand.Rand
}

// router sends a request to the arm whose fixture it came from, and labels
// the sample with the arm's name.
func (il *interleaved) router(base, cand Arm) Doer {
	candidate := map[*openai.ChatCompletionMessage]bool{}
	for i := range il.fx[1].Len() {
		candidate[&il.fx[1].Prompt(i).Request.Messages[0]] = true
	}
	return DoerFunc(func(ctx context.Context, req stream.Request) sample.Sample {
		arm := base
		if len(req.Messages) > 0 && candidate[&req.Messages[0]] {
			arm = cand
		}
		s := arm.Doer.Do(ctx, req)
		s.Endpoint = arm.Name
		return s
	})
}

// run sends one run of N pairs at p, after the warm-up when first.
func (il *interleaved) run(ctx context.Context, route Doer, p Pacer, first bool) []sample.Sample {
	o := il.o
	// Slots 2k and 2k+1 ask case at+k of each endpoint, in an order drawn
	// for the pair.
	order := make([]int, o.N+o.Warmup)
	for k := range order {
		order[k] = il.rng.IntN(2)
	}
	start := il.at
	src := SourceFunc(func(i int) Prompt {
		k := i / 2
		side := order[k%len(order)] ^ (i % 2)
		return il.fx[side].Prompt(start + k)
	})
	warm := 0
	if first {
		warm = 2 * o.Warmup // the runner's warm-up asks slots 0, 1, …: both endpoints
	}
	cases := il.fx[0].Len()
	opts := []Option{Warmup(warm), Tag(func(s *sample.Sample) { s.Scenario, s.FixtureCases = o.Scenario, cases })}
	if o.Sink != nil {
		opts = append(opts, Sink(o.Sink))
	}
	end := func([]sample.Sample) {}
	if o.Each != nil {
		var more []Option
		more, end = o.Each(p, first)
		opts = append(opts, more...)
	}
	out := NewRunner(opts...).Run(ctx, route, MaxTokens(src, o.MaxTokens), p, 2*o.N)
	end(out)
	il.at = (il.at + o.N) % cases
	return out
}
