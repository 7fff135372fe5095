package session

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/lateness"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// conversationFixture writes n conversations of turns turns each (every
// turn's message 20 words, its own), think as given, judged on the last
// turn, and returns the file's path.
func conversationFixture(t *testing.T, n, turns int, think string) string {
	t.Helper()
	var b strings.Builder
	for c := range n {
		msgs := make([]string, turns)
		for k := range msgs {
			msgs[k] = fmt.Sprintf("conversation %d turn %d:%s", c, k+1, strings.Repeat(" tell me more", 6))
		}
		fmt.Fprintf(&b, `{"id":"c%d","turns":["%s"],"think":%s,"expected":"done c%d","match":{"type":"normalized"},"answer":"done c%d","wrong_answer":"nope"}`+"\n",
			c, strings.Join(msgs, `","`), think, c, c)
	}
	p := filepath.Join(t.TempDir(), "conversations.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// converse measures the conversations of fixture on the simulator of spec
// at level p, n requests, and returns the samples (cold and warm-up
// included), the verdict and the simulator.
func converse(t *testing.T, spec, fixture string, p load.Pacer, n int, conf config.Scenario) ([]sample.Sample, objective.Verdict, *sim.Server) {
	t.Helper()
	return converseAPI(t, "", spec, fixture, p, n, conf)
}

// converseAPI is converse through an endpoint of api ("" for chat's).
func converseAPI(t *testing.T, api stream.API, spec, fixture string, p load.Pacer, n int, conf config.Scenario) ([]sample.Sample, objective.Verdict, *sim.Server) {
	t.Helper()
	s, cfg := apiSession(t, api, spec)
	src, err := s.Source(Scenario{Name: "conversation", Fixture: fixture})
	require.NoError(t, err)
	lv := config.Level{Pacer: p}
	samples, err := s.Measure(context.Background(), Cell{Scenario: "conversation", Endpoint: cfg.Endpoints[0], Settings: conf, Level: lv, Fixture: src}, n)
	require.NoError(t, err)
	return samples, objective.Judge(samples, conf.Objectives), s.Sim("sim")
}

// truthOf maps each sample to what the simulator did for its request.
func truthOf(t *testing.T, srv *sim.Server, samples []sample.Sample) map[int]sim.Truth {
	t.Helper()
	byID := map[string]sim.Truth{}
	for _, tr := range srv.Truth() {
		byID[tr.ID] = tr
	}
	out := map[int]sim.Truth{}
	for i, s := range samples {
		tr, ok := byID[s.ID]
		require.True(t, ok, "sample %d (%q) is no request the simulator answered", i, s.ID)
		out[i] = tr
	}
	return out
}

// TestConversationHistoryTruth: each turn is sent with the whole history
// (its prompt tokens are the simulator's count of every message so far),
// TTFT grows turn by turn, and the fit of TTFT against the history's
// tokens recovers the simulator's prefill cost within 10%, widened by the
// slope two readings late by the lateness probe's p99 make across the
// history's span of tokens. The last turn is judged, with the simulator's
// answer to it.
func TestConversationHistoryTruth(t *testing.T) {
	const perToken = 200 * time.Microsecond
	fixture := conversationFixture(t, 4, 5, `"0s"`)
	conf := config.Scenario{MaxTokens: 16, Objectives: objective.MustParse(map[string]float64{"error_rate_max": 0})}
	var all []sample.Sample
	var v objective.Verdict
	var srv *sim.Server
	late := lateness.During(func() {
		all, v, srv = converse(t, "ttft=5ms,prefill=200us,tpot=200us,tokens=12,jitter=0", fixture, load.Sessions(1), 20, conf)
	})
	samples := measured(all)
	require.Len(t, samples, 20, "the n requests asked, besides the cold one and the warm-up")
	truth := truthOf(t, srv, samples)
	for i, s := range samples {
		require.True(t, s.OK(), s.Err)
		tr := truth[i]
		assert.Equal(t, tr.PromptTokens, s.PromptTokens, "turn %d of %s: the history the simulator counted", s.Turn, s.Case)
		assert.Equal(t, tr.TTFTDelay, 5*time.Millisecond+time.Duration(tr.PromptTokens)*perToken, "the simulator's truth: ttft + prefill × prompt")
		if s.Turn > 1 {
			prev := samples[i-1]
			assert.Equal(t, prev.PromptTokens+prev.OutputTokens+22, s.PromptTokens, "turn %d holds the last turn, its answer and its own 22 words", s.Turn)
		}
	}
	c := v.Stats.Conv
	require.Len(t, c.Turns, 5)
	for k := 1; k < 5; k++ {
		assert.Greater(t, c.Turns[k].TTFT.P50, c.Turns[k-1].TTFT.P50, "turn %d's ttft over turn %d's", k+1, k)
	}
	want := float64(perToken) / float64(time.Millisecond)
	lo, hi := samples[0].PromptTokens, samples[0].PromptTokens
	for _, s := range samples {
		lo, hi = min(lo, s.PromptTokens), max(hi, s.PromptTokens)
	}
	tol := 0.10 + 2*stats.Ms(late.P99)/(float64(hi-lo)*want)
	t.Logf("history fit: ttft = %.2f ms + %.4f ms per token (± %.4f), n=%d; truth %.4f, tolerance %.0f%% (%s)", c.History.A, c.History.B, c.History.BErr, c.History.N, want, 100*tol, late)
	assert.InEpsilon(t, want, c.History.B, tol, "the fit's slope within %.0f%% of the simulator's prefill cost", 100*tol)
	assert.Equal(t, []int{4, 4, 0, 0}, []int{c.Sessions, c.Complete, c.Failed, c.Cut})
	assert.Equal(t, 4, v.Stats.Quality.MatchChecked, "the last turn of each conversation is judged, no other")
	assert.Equal(t, 4, v.Stats.Quality.Matched, "the simulator answers the last turn as the case expects")
	assert.True(t, v.OK(), "%v", v.Violations)
}

// TestConversationThinkTruth: a later turn reaches the simulator its
// think time after the simulator ended the previous answer, within 5 ms;
// the think times are drawn, seeded, and the conversations keep their
// connections.
func TestConversationThinkTruth(t *testing.T) {
	fixture := conversationFixture(t, 4, 4, `{"mean":"40ms","stddev":"20ms"}`)
	conf := config.Scenario{Warmup: 2, MaxTokens: 8, Seed: 11}
	var samples []sample.Sample
	var srv *sim.Server
	late := lateness.During(func() {
		samples, _, srv = converse(t, "ttft=3ms,tpot=1ms,tokens=6,jitter=0", fixture, load.Sessions(2), 16, conf)
	})
	// 5 ms, and the worst wake the machine showed meanwhile: a think
	// timer wakes as late (CI beside two spinners: 7.5 ms).
	slack := 5*time.Millisecond + late.Max
	truth := truthOf(t, srv, samples)
	var gaps int
	var worst time.Duration
	thinks := map[time.Duration]bool{}
	for i, s := range samples {
		if !s.Measured() {
			continue
		}
		require.True(t, s.OK(), s.Err)
		assert.True(t, s.Reused, "turn %d of %s: a conversation keeps a connection the warm-up opened", s.Turn, s.Session)
		if s.Turn == 1 {
			continue
		}
		j := prevTurn(samples, i)
		require.GreaterOrEqual(t, j, 0)
		gap := truth[i].Received.Sub(truth[j].Last)
		assert.InDelta(t, float64(s.Think), float64(gap), float64(slack),
			"turn %d of %s: the simulator saw it %v after its last answer, think %v (%s)", s.Turn, s.Session, gap, s.Think, late)
		thinks[s.Think] = true
		gaps++
		worst = max(worst, (gap - s.Think).Abs())
	}
	t.Logf("%d later turns: the simulator saw each within %v of its think time after the last answer", gaps, worst)
	assert.Equal(t, 12, gaps, "four conversations, three later turns each")
	assert.Len(t, thinks, 12, "drawn think times")
}

// measured is the measured samples of all.
func measured(all []sample.Sample) []sample.Sample {
	var out []sample.Sample
	for _, s := range all {
		if s.Measured() {
			out = append(out, s)
		}
	}
	return out
}

// prevTurn is the index of the sample of the turn before samples[i]'s in
// its conversation, -1 when none.
func prevTurn(samples []sample.Sample, i int) int {
	for j := range samples {
		if samples[j].Session == samples[i].Session && samples[j].Turn == samples[i].Turn-1 {
			return j
		}
	}
	return -1
}

// TestConversationOpenLoop: session_rate starts conversations on its
// schedule; every turn has a scheduled instant, a later one its user's
// end of thinking, and the client kept to it (within 5 ms and the worst
// wake the machine showed meanwhile: beside two CPU-bound processes the
// lag p95 was 7.3 ms); the count asked is the count sent, the last
// conversation cut.
func TestConversationOpenLoop(t *testing.T) {
	fixture := conversationFixture(t, 3, 3, `"20ms"`)
	conf := config.Scenario{MaxTokens: 8}
	p := load.SessionRate{Rate: 20, Arrivals: load.Arrivals{Arrival: load.Constant}}
	probe := lateness.Start()
	all, v, _ := converse(t, "ttft=3ms,tpot=1ms,tokens=4,jitter=0", fixture, p, 8, conf)
	late := probe.Stop()
	samples := measured(all)
	require.Len(t, samples, 8)
	for _, s := range samples {
		assert.True(t, s.Scheduled(), "turn %d of %s", s.Turn, s.Session)
	}
	assert.True(t, v.Stats.Open.Scheduled)
	assert.Less(t, v.Stats.Open.Lag.P95, 5+stats.Ms(late.Max), "lag p95 in ms (the worst wake %v)", late.Max)
	c := v.Stats.Conv
	assert.Equal(t, []int{3, 2, 0, 1}, []int{c.Sessions, c.Complete, c.Failed, c.Cut}, "3 + 3 + 2 of 3 turns")
	assert.Equal(t, 2, c.Total.N)
}

// TestConversationsNeedTheirLevels: a fixture of conversations on a
// scenario whose level sends single requests is refused before any
// request, at the case's file and line.
func TestConversationsNeedTheirLevels(t *testing.T) {
	s, cfg := simSession(t, "ttft=1ms")
	fixture := conversationFixture(t, 2, 3, `"0s"`)
	cfg.Scenarios["conversation"] = config.Scenario{Samples: 4, Concurrency: []int{2}}
	_, err := s.Source(Scenario{Name: "conversation", Fixture: fixture})
	require.Error(t, err)
	assert.Contains(t, err.Error(), fixture+":1: case c0 is a conversation, and scenario conversation's level concurrency=2 on endpoint sim would send its first turn alone")
	assert.Empty(t, s.Sim("sim").Truth(), "nothing sent")

	cfg.Scenarios["conversation"] = config.Scenario{Samples: 4, Loads: []load.Pacer{load.Sessions(2)}}
	_, err = s.Source(Scenario{Name: "conversation", Fixture: fixture})
	assert.NoError(t, err)
}

// TestConversationWalksFixture: each run of a level of conversations
// starts where the last stopped, in conversations, so that runs of few
// requests still ask every case.
func TestConversationWalksFixture(t *testing.T) {
	s, cfg := simSession(t, "ttft=1ms,tpot=0s,tokens=2")
	src, err := s.Source(Scenario{Name: "conversation", Fixture: conversationFixture(t, 5, 2, `"0s"`)})
	require.NoError(t, err)
	c := Cell{Scenario: "conversation", Endpoint: cfg.Endpoints[0], Settings: config.Scenario{MaxTokens: 4}, Level: config.Level{Pacer: load.Sessions(1)}, Fixture: src}
	asked := map[string]bool{}
	for range 3 {
		samples, err := s.Measure(context.Background(), c, 4)
		require.NoError(t, err)
		for _, smp := range samples {
			if smp.Measured() {
				asked[smp.Case] = true
			}
		}
	}
	assert.Len(t, asked, 5, "3 runs of 2 conversations walk the 5 cases: %v", asked)
}

// TestConversationHeader: every turn of a conversation goes over one
// connection and carries the session header with the conversation's id,
// which two conversations do not share.
func TestConversationHeader(t *testing.T) {
	var mu sync.Mutex
	type seen struct{ addr, header string }
	var got []seen
	bothWarm := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r) // the session's probe of /metrics: no server account here
			return
		}
		mu.Lock()
		got = append(got, seen{r.RemoteAddr, r.Header.Get("X-Session-Affinity")})
		n := len(got)
		if n == 3 {
			close(bothWarm)
		}
		mu.Unlock()
		if n == 2 || n == 3 {
			// The two warm-up conversations' first requests are answered
			// once both have arrived, so that they are in flight together,
			// as the level has them: on a busy machine the first had ended
			// before the second was sent, which took its idle connection.
			select {
			case <-bothWarm:
			case <-time.After(5 * time.Second):
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"reply"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "far", BaseURL: srv.URL + "/v1", Model: "m"}},
		Scenarios: map[string]config.Scenario{"conversation": {Loads: []load.Pacer{load.Sessions(2)}}}}
	s, err := New(cfg, Run{}, Options{})
	require.NoError(t, err)
	defer s.Close()
	src, err := s.Source(Scenario{Name: "conversation", Fixture: conversationFixture(t, 2, 3, `"0s"`)})
	require.NoError(t, err)
	conf := config.Scenario{SessionHeader: "X-Session-Affinity"}
	samples, err := s.Measure(context.Background(), Cell{Scenario: "conversation", Endpoint: cfg.Endpoints[0], Settings: conf,
		Level: config.Level{Pacer: load.Sessions(2)}, Fixture: src}, 6)
	require.NoError(t, err)
	require.Len(t, samples, 1+2+6, "the cold request, a warm-up for each conversation in flight, the n asked")
	addr := map[string]string{}
	for _, smp := range samples[1:] {
		require.True(t, smp.OK(), smp.Err)
		addr[smp.Session] = ""
	}
	require.Len(t, got, 9)
	assert.Empty(t, got[0].header, "the cold request is no conversation's")
	for _, g := range got[1:] {
		_, ok := addr[g.header]
		require.True(t, ok, "header %q names a conversation", g.header)
		if addr[g.header] == "" {
			addr[g.header] = g.addr
		}
		assert.Equal(t, addr[g.header], g.addr, "conversation %s: every turn over its connection", g.header)
	}
	assert.Len(t, addr, 4, "two warm-up conversations, two measured")
	warm := map[string]bool{addr[samples[1].Session]: true, addr[samples[2].Session]: true}
	assert.Len(t, warm, 2, "each warm-up conversation opens its connection")
	assert.True(t, warm[addr[samples[3].Session]] && warm[addr[samples[6].Session]], "the connections the warm-up opened serve the measured conversations")
}

// TestConversationShards: two shards of a level of conversations each
// send their share of the requests, their share of the users, and play
// disjoint conversations of the fixture, which the two walk together.
func TestConversationShards(t *testing.T) {
	fixture := conversationFixture(t, 6, 2, `"0s"`)
	asked := map[string]int{}
	sessions := map[string]bool{}
	for i := range 2 {
		s, cfg := simSessionRun(t, "ttft=1ms,tpot=0s,tokens=2", Run{Shard: load.Shard{I: i, N: 2}})
		src, err := s.Source(Scenario{Name: "conversation", Fixture: fixture})
		require.NoError(t, err)
		c := Cell{Scenario: "conversation", Endpoint: cfg.Endpoints[0], Settings: config.Scenario{MaxTokens: 4},
			Level: config.Level{Pacer: load.Sessions(4)}, Fixture: src}
		for range 2 {
			samples, err := s.Measure(context.Background(), c, 8)
			require.NoError(t, err)
			got := measured(samples)
			require.Len(t, got, 4, "shard %d: its share of the 8 requests", i)
			for _, smp := range got {
				assert.Equal(t, "sessions=4", string(smp.Level), "the whole load's level")
				if smp.Turn == 1 {
					asked[smp.Case]++
				}
				sessions[smp.Session] = true
			}
		}
	}
	assert.Len(t, asked, 6, "the shards' conversations cover the fixture: %v", asked)
	for id, n := range asked {
		assert.LessOrEqual(t, n, 2, "case %s asked %d times over 2 runs of 4 conversations each of 6 cases", id, n)
	}
	assert.Len(t, sessions, 8, "every conversation its own id, across shards")
}

// TestConversationSoak: a level of conversations with a duration sends
// until the duration has passed, stopping conversations mid-thought, and
// the conversations it ended are counted as cut. The time it may take and
// the turns it must send are bounded by the time the process was stalled
// (the lateness probe's stalls: a starved process sends nothing while it
// is). Proven: with the duration ignored (the soak plays every turn) it
// takes 4 × 6 turns × 200 ms and fails the first bound.
func TestConversationSoak(t *testing.T) {
	fixture := conversationFixture(t, 4, 6, `"200ms"`)
	conf := config.Scenario{Duration: time.Second, MaxTokens: 4}
	lv := config.Level{Pacer: load.Sessions(2)}
	var all []sample.Sample
	var v objective.Verdict
	start := time.Now()
	late := lateness.During(func() {
		all, v, _ = converse(t, "ttft=2ms,tpot=0s,tokens=2,jitter=0", fixture, lv.Pacer, conf.Requests(lv), conf)
	})
	took := time.Since(start)
	stalled := late.StalledIn(start, start.Add(took))
	t.Logf("took %s, %s stalled; %s", took, stalled, late)
	assert.Less(t, took, 2*time.Second+stalled, "the soak ends at its duration, not after every turn of the 1,000,000 a closed loop may send")
	// Two users, a turn every ~200 ms (and its answer) for the second the
	// process was not stalled.
	want := 2 * int((time.Second-stalled)/(250*time.Millisecond))
	assert.GreaterOrEqual(t, len(measured(all)), want, "two users, a turn every ~200 ms for a second, %s of it stalled", stalled)
	c := v.Stats.Conv
	if len(measured(all)) > 0 {
		assert.Positive(t, c.Cut, "conversations of 6 turns 200 ms apart cannot finish in 1 s")
	}
	assert.Zero(t, c.Complete)
}
