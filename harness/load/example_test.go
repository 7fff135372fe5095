package load_test

import (
	"context"
	"fmt"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// A Runner plays a Source and a Pacer against a Doer: here a closed loop
// of two workers over three prompts, with a cold request and a warm-up
// kept apart, against a Doer that answers at once.
func ExampleRunner_Run() {
	src := load.SourceFunc(func(i int) load.Prompt {
		return load.Prompt{Case: fmt.Sprintf("case-%d", i%3)}
	})
	answer := load.DoerFunc(func(ctx context.Context, req stream.Request) sample.Sample {
		return sample.Sample{Start: time.Now(), Total: time.Millisecond, Finish: "stop", OutputTokens: 1}
	})
	r := load.NewRunner(load.ColdFirst(true), load.Warmup(2))
	for _, s := range r.Run(context.Background(), answer, src, load.Closed(2), 4) {
		fmt.Println(s.Seq, s.Level, s.Case, s.Cold, s.Warmup)
	}
	// Output:
	// 0 concurrency=2 case-0 true false
	// 1 concurrency=2 case-0 false true
	// 2 concurrency=2 case-1 false true
	// 3 concurrency=2 case-0 false false
	// 4 concurrency=2 case-1 false false
	// 5 concurrency=2 case-2 false false
	// 6 concurrency=2 case-0 false false
}

// An open loop's schedule is computed from its seed before the first
// request: the offsets at which requests are due.
func ExampleOpen_Schedule() {
	fmt.Println(load.Open{Rate: 4, Arrival: load.Constant}.Schedule(4))
	// Output: [250ms 500ms 750ms 1s]
}

// A ramp from 1 to 3 requests per second over 2 s asks for 4 requests;
// with constant arrivals each is due when the ramp has asked for one more,
// closer together as the rate climbs.
func ExampleRamp_Schedule() {
	r := load.Ramp{From: 1, To: 3, Over: 2 * time.Second, Arrivals: load.Arrivals{Arrival: load.Constant}}
	n, _ := r.Requests(r.Over)
	fmt.Println(r.Level(), n, r.Schedule(n))
	// Output: ramp=1to3 4 [732.050808ms 1.236067977s 1.645751311s 2s]
}
