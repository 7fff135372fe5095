package load_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/lateness"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// conversations loads a fixture of the given case lines.
func conversations(t *testing.T, lines ...string) *load.Fixture {
	t.Helper()
	p := filepath.Join(t.TempDir(), "conv.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	cases, err := quality.LoadCases(p)
	require.NoError(t, err)
	f, err := load.NewFixture(cases, load.FixtureOptions{System: "Be brief."})
	require.NoError(t, err)
	return f
}

// convCase is a live conversation of the given turns, judged on its last.
func convCase(id string, think string, turns ...string) string {
	return fmt.Sprintf(`{"id":%q,"turns":["%s"],"think":%q,"expected":"ok","match":{"type":"contains"},"answer":"ok","wrong_answer":"no"}`,
		id, strings.Join(turns, `","`), think)
}

// echo is a Doer that answers "ok: <the last user message>" after d,
// recording every request; fail makes it fail the requests whose last
// user message it names.
type echo struct {
	mu   sync.Mutex
	reqs []stream.Request
	d    time.Duration
	fail string
}

func (e *echo) Do(_ context.Context, req stream.Request) sample.Sample {
	e.mu.Lock()
	e.reqs = append(e.reqs, req)
	e.mu.Unlock()
	s := sample.Sample{Start: time.Now()}
	time.Sleep(e.d)
	last := req.Messages[len(req.Messages)-1].Content
	s.Total, s.TTFT = time.Since(s.Start), time.Since(s.Start)
	if last == e.fail {
		s.Fail(&sample.RequestError{Kind: sample.KindServerError, Message: "boom"})
		return s
	}
	s.Content, s.Finish = "ok: "+last, "stop"
	return s
}

// TestConversationsPlayTurns: a level of conversations lays the run's n
// requests out over the fixture's conversations — every turn in order,
// the last conversation cut to what is left — and each turn's request
// holds the history so far, the model's own replies in between, with the
// case's checks on the last turn only.
func TestConversationsPlayTurns(t *testing.T) {
	f := conversations(t, convCase("a", "0s", "a1", "a2", "a3"), convCase("b", "0s", "b1", "b2"), convCase("c", "0s", "c1", "c2", "c3", "c4"))
	require.True(t, f.Conversing())
	d := &echo{}
	samples := load.NewRunner().Run(context.Background(), d, f, load.Sessions(1), 7)
	require.Len(t, samples, 7, "exactly the n requests asked")
	var got []string
	for i, s := range samples {
		assert.Equal(t, i, s.Seq)
		got = append(got, fmt.Sprintf("%s %d/%d", s.Case, s.Turn, s.Turns))
		assert.Equal(t, s.Turn == s.Turns, s.Quality != nil, "%s turn %d: judged on its last turn only", s.Case, s.Turn)
	}
	assert.Equal(t, []string{"a 1/3", "a 2/3", "a 3/3", "b 1/2", "b 2/2", "c 1/4", "c 2/4"}, got)
	assert.Equal(t, samples[0].Session, samples[2].Session)
	assert.NotEqual(t, samples[0].Session, samples[3].Session)

	third := d.reqs[2].Messages
	var roles []string
	for _, m := range third {
		roles = append(roles, m.Role+": "+m.Content)
	}
	assert.Equal(t, []string{"system: Be brief.", "user: a1", "assistant: ok: a1", "user: a2", "assistant: ok: a2", "user: a3"}, roles)
	assert.Len(t, d.reqs[3].Messages, 2, "a new conversation starts from its first turn")
}

// TestRecordedHistory: with history: recorded the history holds the
// case's assistant entries, whatever the model answered.
func TestRecordedHistory(t *testing.T) {
	f := conversations(t, `{"id":"r","turns":["q1","q2","q3"],"history":"recorded","assistant":["r1","r2"],"expected":"ok","match":{"type":"contains"},"answer":"ok","wrong_answer":"no"}`)
	d := &echo{}
	load.NewRunner().Run(context.Background(), d, f, load.Sessions(1), 3)
	require.Len(t, d.reqs, 3)
	var contents []string
	for _, m := range d.reqs[2].Messages {
		contents = append(contents, m.Content)
	}
	assert.Equal(t, []string{"Be brief.", "q1", "r1", "q2", "r2", "q3"}, contents)
}

// TestThinkTime: a later turn starts its think time after the previous
// answer ended: not 5 ms sooner, nor 5 ms later beyond the time the
// process was stalled in the gap (the lateness probe's stalls: a starved
// client wakes late from the think), and its sample says the think time
// planned.
// Proven: with the think skipped (the turn sent at once) every gap is
// ~0 against thinks of 10-70 ms, and the test fails.
func TestThinkTime(t *testing.T) {
	f := conversations(t, `{"id":"t","turns":["1","2","3","4"],"think":{"mean":"30ms","stddev":"20ms"},"expected":"ok","match":{"type":"contains"},"answer":"ok","wrong_answer":"no"}`)
	run := func(seed uint64) []sample.Sample {
		return load.NewRunner(load.Seed(seed)).Run(context.Background(), &echo{d: 2 * time.Millisecond}, f, load.Sessions(2), 8)
	}
	var samples []sample.Sample
	late := lateness.During(func() { samples = run(5) })
	t.Log(late)
	require.Len(t, samples, 8)
	thinks := map[time.Duration]bool{}
	for i, s := range samples {
		if s.Turn == 1 {
			assert.Zero(t, s.Think)
			continue
		}
		prev := samples[i-1]
		require.Equal(t, prev.Session, s.Session)
		gap := s.Start.Sub(prev.End())
		// Lateness only delays: never sooner than the think less 5 ms, never
		// later than 5 ms past it plus the process's stalls in the gap.
		stalled := late.StalledIn(prev.End(), s.Start)
		assert.True(t, gap >= s.Think-5*time.Millisecond && gap <= s.Think+5*time.Millisecond+stalled+lateness.Stall,
			"turn %d: %v after the answer (%v of it stalled), think %v", s.Turn, gap, stalled, s.Think)
		assert.Greater(t, s.Think, time.Duration(0))
		thinks[s.Think] = true
	}
	assert.Len(t, thinks, 6, "drawn think times, each its own")
	again := run(5)
	for i := range samples {
		assert.Equal(t, samples[i].Think, again[i].Think, "the same seed draws the same think times")
	}
	assert.NotEqual(t, samples[1].Think, run(6)[1].Think, "another seed, other think times")
}

// TestFailedTurnEndsConversation: a turn that fails ends its
// conversation; the next conversation goes on.
func TestFailedTurnEndsConversation(t *testing.T) {
	f := conversations(t, convCase("a", "0s", "a1", "a2", "a3"), convCase("b", "0s", "b1", "b2"))
	samples := load.NewRunner().Run(context.Background(), &echo{fail: "a2"}, f, load.Sessions(1), 5)
	var got []string
	for _, s := range samples {
		got = append(got, fmt.Sprintf("%s %d %v", s.Case, s.Turn, s.OK()))
	}
	assert.Equal(t, []string{"a 1 true", "a 2 false", "b 1 true", "b 2 true"}, got)
}

// TestConversationWarmup: the cold request is turn 1 of the first
// conversation, and the warm-up plays first turns only, as many as asked.
func TestConversationWarmup(t *testing.T) {
	f := conversations(t, convCase("a", "0s", "a1", "a2"), convCase("b", "0s", "b1", "b2"), convCase("c", "0s", "c1", "c2"))
	samples := load.NewRunner(load.ColdFirst(true), load.Warmup(3)).Run(context.Background(), &echo{}, f, load.Sessions(3), 2)
	require.Len(t, samples, 1+3+2)
	assert.True(t, samples[0].Cold)
	for _, s := range samples[1:4] {
		assert.True(t, s.Warmup)
		assert.Equal(t, 1, s.Turn)
		assert.Contains(t, s.Session, "/w")
	}
	for _, s := range samples[4:] {
		assert.True(t, s.Measured())
		assert.Equal(t, "a", s.Case)
	}
}

// TestSessionRateSchedules: an open loop of conversations starts them on
// its schedule, and a later turn is due when its user is done thinking:
// every turn has a scheduled instant, and the client kept to it: within
// 5 ms and what the process stalled between the instant and the send
// (beside two CPU-bound processes a first turn was sent 5.2 ms late).
func TestSessionRateSchedules(t *testing.T) {
	f := conversations(t, convCase("a", "20ms", "a1", "a2", "a3"))
	p := load.SessionRate{Rate: 50, Arrivals: load.Arrivals{Arrival: load.Constant}}
	probe := lateness.Start()
	samples := load.NewRunner().Run(context.Background(), &echo{d: time.Millisecond}, f, p, 9)
	late := probe.Stop()
	require.Len(t, samples, 9)
	for _, s := range samples {
		assert.True(t, s.Scheduled(), "turn %d of %s", s.Turn, s.Session)
		stalled := late.StalledIn(s.Start.Add(-s.Lag), s.Start)
		assert.Less(t, s.Lag, 5*time.Millisecond+stalled+lateness.Stall, "turn %d of %s (%v of it stalled)", s.Turn, s.Session, stalled)
	}
	assert.Equal(t, "session_rate=50", string(p.Level()))
}

// TestConversationPositions: the fixture positions a run of n requests
// takes as conversations, every shard's share together.
func TestConversationPositions(t *testing.T) {
	f := conversations(t, convCase("a", "0s", "1", "2", "3"), convCase("b", "0s", "1"), convCase("c", "0s", "1", "2"))
	cases := map[string]struct {
		at, n int
		sh    load.Shard
		want  int
	}{
		"whole conversations":    {0, 6, load.Shard{}, 3},
		"the last one cut":       {0, 4, load.Shard{}, 2},
		"from another case":      {1, 3, load.Shard{}, 2},
		"two shards interleaved": {0, 6, load.Shard{I: 0, N: 2}, 4}, // shard 0: a, c (3+2 ≥ 3); shard 1: b, a (1+3 ≥ 3)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, f.Conversations(tc.at, tc.n, tc.sh))
		})
	}
}

// TestSessionKinds: sessions: and session_rate: are registered kinds,
// their levels labelled, split over shards as their closed and open loops
// are, and seen as pacers of conversations through a shard's part.
func TestSessionKinds(t *testing.T) {
	k, ok := load.KindOf("sessions")
	require.True(t, ok)
	ps, err := k.Levels(list(scalar("1", 3), scalar("4", 4)))
	require.NoError(t, err)
	assert.Equal(t, []load.Pacer{load.Sessions(1), load.Sessions(4)}, ps)
	_, err = k.Levels(scalar("0", 5))
	assert.EqualError(t, err, `"0" is not a whole number from 1 to 100000`)

	r, ok := load.KindOf("session_rate")
	require.True(t, ok)
	ps, err = r.Levels(scalar("0.5", 3))
	require.NoError(t, err)
	assert.Equal(t, []load.Pacer{load.SessionRate{Rate: 0.5}}, ps)
	_, err = r.Levels(scalar("-1", 5))
	assert.EqualError(t, err, `"-1" is not a rate (want conversations started per second, > 0 and ≤ 1000000)`)

	var workers int
	var rate float64
	for i := range 3 {
		sh := load.Shard{I: i, N: 3}
		p, err := sh.Pacer(load.Sessions(7))
		require.NoError(t, err)
		assert.True(t, load.PacesSessions(p))
		assert.Equal(t, "sessions=7", string(p.Level()))
		workers += p.Workers()
		q, err := load.SessionRate{Rate: 3}.Split(sh)
		require.NoError(t, err)
		rate += q.(load.SessionRate).Rate
	}
	assert.Equal(t, 7, workers)
	assert.InDelta(t, 3, rate, 1e-9)
	_, err = load.Shard{I: 0, N: 3}.Pacer(load.Sessions(2))
	assert.ErrorContains(t, err, "sessions 2 cannot be split over 3 shards")
	assert.False(t, load.PacesSessions(load.Closed(2)))

	a := load.Arrivals{Arrival: load.Gamma, Burstiness: 0.5, MaxConcurrency: 4, Seed: 9}
	withA := load.SessionRate{Rate: 2}.WithArrivals(a).(load.SessionRate)
	assert.Equal(t, load.SessionRate{Rate: 2, Arrivals: a}, withA)
	assert.Equal(t, 4, withA.Workers())
}

// TestConversationUnderCacheBust: under cache: bust each conversation's
// first user message carries a marker of its own, kept on every later
// turn: the conversation's history is its own prefix (which a server's
// cache serves in production too), but no two conversations share one.
func TestConversationUnderCacheBust(t *testing.T) {
	f := conversations(t, convCase("a", "0s", "a1", "a2", "a3"), convCase("b", "0s", "b1", "b2", "b3"))
	d := &echo{}
	samples := load.NewRunner().Run(context.Background(), d, load.Cache(f, sample.CacheBust, 0), load.Sessions(1), 6)
	require.Len(t, samples, 6)
	require.Len(t, d.reqs, 6)
	firstUser := func(r stream.Request) string {
		for _, m := range r.Messages {
			if m.Role == "user" {
				return m.Content
			}
		}
		return ""
	}
	a, b := firstUser(d.reqs[0]), firstUser(d.reqs[3])
	assert.Contains(t, a, "[request ", "the first turn is marked")
	assert.True(t, strings.HasSuffix(a, "a1"), "the question follows its marker: %q", a)
	assert.NotEqual(t, a, b, "two conversations never share a marker")
	for i := 1; i < 3; i++ {
		assert.Equal(t, a, firstUser(d.reqs[i]), "turn %d keeps its conversation's marked first message", i+1)
		assert.Equal(t, b, firstUser(d.reqs[3+i]), "turn %d keeps its conversation's marked first message", i+1)
	}
}
