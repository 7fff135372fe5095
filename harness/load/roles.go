// Package load decides who sends what, and when: the second stage of
// llmsla's pipeline, between one timed request (package stream) and the
// statistics of many (package stats).
//
// A [Runner] plays three roles against each other, each a small interface
// with a func adapter where it has several shapes:
//
//   - a [Source] says what the i-th request of a run is ([Fixture]
//     cases, or [Synthetic] prompts of a given length);
//   - a [Pacer] says when each request goes and with how many in flight
//     ([Closed] is the closed loop: a fixed number of workers, each sending
//     its next request when the previous one ends; [Open] sends at an
//     arrival rate whatever the server does; [Ramp] at a rate that climbs),
//     and describes itself ([Splitter], [Planner]) so that sharding, the
//     warm-up and a plan never switch on its type;
//   - a [Doer] turns a request into a [sample.Sample] (*stream.Client is
//     one; tests may supply others).
//
// Each load shape is a [Kind] in a registry, the key sla.yaml writes
// (concurrency:, rate:, ramp:, sessions:, session_rate:): a new shape is
// one file, its pacer and the Register call of its kind.
//
// A [SessionPacer] ([Sessions], [SessionRate]) paces conversations rather
// than requests: the runner lays a run's requests out over the fixture's
// [Conversation]s and plays each turn by turn, its history growing, a
// think time before each later turn, over one connection of its own
// (conversation.go).
//
// The runner adds what every load shape shares: a cold first request sent
// alone, a warm-up at the run's own load, the quality check of every
// answer, labels, and a sink that sees each sample as it completes.
package load

import (
	"context"
	"time"

	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// Doer turns a request into a timed Sample. It never fails: a failed
// request is a Sample with an error kind.
type Doer interface {
	Do(ctx context.Context, req stream.Request) sample.Sample
}

// DoerFunc adapts a function to Doer.
type DoerFunc func(ctx context.Context, req stream.Request) sample.Sample

// Do calls f.
func (f DoerFunc) Do(ctx context.Context, req stream.Request) sample.Sample { return f(ctx, req) }

var _ Doer = (*stream.Client)(nil)

// Prompt is one request of a scenario and the check its answer must pass.
type Prompt struct {
	Request stream.Request
	Case    string         // fixture case id, if any
	Check   *quality.Check // nil: latency only
	Agent   *Agent         // nil: one request; else an agent loop (agent.go)
	// Conversation is the whole of a fixture case a level of
	// conversations plays (sessions:, session_rate:), Request its first
	// turn; nil for a prompt that is one request (a synthetic one).
	Conversation *Conversation
	Asked        *sample.Asked // the lengths a trace's row asked, nil for other prompts
}

// Source yields the i-th prompt of a run. It is called from several
// goroutines at once.
type Source interface {
	Prompt(i int) Prompt
}

// SourceFunc adapts a function to Source.
type SourceFunc func(i int) Prompt

// Prompt calls f.
func (f SourceFunc) Prompt(i int) Prompt { return f(i) }

// Pacer decides when each request of a run goes. Pace calls send(i, sched)
// once for every i in [0, n), from as many goroutines as its load shape
// needs, and returns when every send it started has returned; when ctx is
// done it starts no more. sched is the instant request i was due: the zero
// time when it is due as soon as it is sent (closed loop), so that lag is
// only measured where a schedule exists.
//
// Every pacer also describes itself (Splitter, Planner), so that sharding,
// the connection warm-up, a soak's count and a plan's duration ask the
// pacer instead of switching on its type: a new load shape is its own file
// and a registered Kind (kind.go).
type Pacer interface {
	Pace(ctx context.Context, n int, send func(i int, sched time.Time))
	// Level labels the samples with the load: concurrency=5, rate=10.
	Level() sample.Level
	Splitter
	Planner
}

// Splitter is a load the machines of a sharded run can share.
type Splitter interface {
	// Split is shard s's part of the load (s.On()): the N parts add up to
	// the whole, each drawn apart from the others. It fails for a load that
	// cannot be split without changing it (fewer workers than shards).
	// Shard.Pacer calls it and keeps the whole load's level.
	Split(s Shard) (Pacer, error)
}

// Planner says what a pacer will send before it sends anything.
type Planner interface {
	// Workers is how many requests the pacer keeps in flight when it
	// decides that: a closed loop's workers, an open loop's
	// max_concurrency; 0 when its arrivals decide. A run opens as many
	// connections in its warm-up, so that no measured request pays for a
	// connect.
	Workers() int
	// Requests is how many requests the pacer sends in d (a soak's count);
	// false when the server's pace decides (closed loop).
	Requests(d time.Duration) (int, bool)
	// Duration is how long sending n requests takes, to the last one's
	// scheduled instant; false when the server's pace decides.
	Duration(n int) (time.Duration, bool)
	// Length is how long the pacer's level lasts when the pacer sets it (a
	// ramp's over), 0 when its count or the scenario's duration does.
	Length() time.Duration
}
