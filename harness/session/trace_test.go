package session

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
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
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
	"github.com/llmsla/llmsla/harness/trace"
)

// shippedTrace is the first 30 s of the shipped trace.
func shippedTrace(t *testing.T) trace.Spec {
	t.Helper()
	root, err := config.ModuleRoot()
	require.NoError(t, err)
	return trace.Spec{File: filepath.Join(root, "traces", "sample.mooncake.jsonl"), Format: trace.Mooncake, End: 30 * time.Second}
}

// The replay's lag bound: p99 ≤ 1 ms (issue 19), on each request's lag
// less the time this process was stalled in it: when a probe goroutine's
// 1 ms sleep woke more than lateness.Stall late (the runtime's timers alone
// wake up to a millisecond late), the machine ran nothing of ours, and no
// pacer can send then. A run off the bound is replayed again only when
// the probe woke late in it (p99 above busyLate: the machine, or the
// simulator sharing its two cores, was busy), up to lagRetries times, the
// last time with the bound widened by twice that lateness: the pacer's
// wake is one more timer of the same machine, and stalls under
// lateness.Stall are not taken off (beside two CPU-bound processes and
// three builds: 5.8, 7.9 and 13.1 ms at p99 where the probe's p99 was 4.4,
// 4.6 and 10.2 ms). On a machine whose timers kept time the bound is 1 ms.
const (
	lagBound   = 1.0 // ms, p99
	busyLate   = 0.5 // ms
	lagRetries = 2
)

// TestTraceReplayTruth replays the shipped trace's first 30 s, 4× faster,
// on the simulator with a prefix cache, and holds each request to its
// row: sent at the row's scaled instant (lag p99 ≤ 1 ms, the schedule
// the rows' offsets / 4), max_tokens the row's output length, the prompt
// the row's input length (within 10%; the simulator counts words, so
// exactly), and the cached tokens the simulator's truth counts those the
// rows' shared hash ids predict.
func TestTraceReplayTruth(t *testing.T) {
	spec := shippedTrace(t)
	var rows []trace.Row
	var offs []time.Duration
	require.NoError(t, trace.Each(spec, func(r trace.Row, off time.Duration) error {
		rows, offs = append(rows, r), append(offs, off)
		return nil
	}))
	var s *Session
	var measured []sample.Sample
	for try := 0; ; try++ {
		probe := lateness.During(func() { s, measured = replayShipped(t, spec, len(rows)) })
		var lags, own []float64
		for _, smp := range measured {
			lags = append(lags, stats.Ms(smp.Lag))
			own = append(own, stats.Ms(smp.Lag-probe.StalledIn(smp.Start.Add(-smp.Lag), smp.Start)))
		}
		lag, mine, late := stats.Describe(lags), stats.Describe(own), stats.Ms(probe.P99)
		bound := lagBound
		if try == lagRetries && late > busyLate {
			bound += 2 * late
		}
		t.Logf("try %d: %d rows over %s: lag p50 %.3f ms, p99 %.3f ms, max %.3f ms; %.3f ms at p99 less %d stalls of the process; its timers woke %.3f ms late at p99",
			try+1, len(rows), offs[len(offs)-1]/4, lag.P50, lag.P99, lag.Max, mine.P99, len(probe.Stalls), late)
		if mine.P99 <= bound {
			break
		}
		if try == lagRetries || late <= busyLate {
			t.Errorf("lag p99 %.3f ms (less the process's stalls) > %.3f ms", mine.P99, bound)
			break
		}
	}

	truth := map[string]sim.Truth{}
	for _, tr := range s.Sim("sim").Truth() {
		truth[tr.ID] = tr
	}
	shift := measured[0].Sched - offs[0]/4 // the pacer's start after the run's
	for i, smp := range measured {
		row := rows[i]
		require.True(t, smp.OK(), "request %d: %s %s", i, smp.ErrKind, smp.Err)
		assert.Equal(t, "trace=sample.mooncake/speedup=4", string(smp.Level))
		assert.InDelta(t, float64(offs[i]/4+shift), float64(smp.Sched), float64(time.Microsecond), "row %d (line %d) scheduled off its scaled timestamp", i, row.Line)
		tr, ok := truth[smp.ID]
		require.True(t, ok, "request %d: no truth for %q", i, smp.ID)
		assert.Equal(t, row.Output, tr.MaxTokens, "row %d: max_tokens", i)
		assert.True(t, tr.IgnoreEOS, "row %d: the simulator takes vLLM's ignore_eos, so the row's output length is asked exactly", i)
		assert.Equal(t, row.Output, tr.OutputTokens, "row %d: the output tokens sent, with no tokens= in the spec", i)
		assert.Equal(t, row.Output, smp.OutputTokens, "row %d: the output tokens received", i)
		assert.InEpsilon(t, row.Input, tr.PromptTokens, 0.10, "row %d: prompt tokens", i)
		require.NotNil(t, smp.Asked)
		assert.Equal(t, sample.Asked{PromptTokens: row.Input, OutputTokens: row.Output}, *smp.Asked)
	}

	// The cache: request by request in the order the simulator received
	// them, the words each shares with an earlier one of the run, in the
	// simulator's blocks of 16, never its whole prompt.
	byID := map[string]int{}
	for i, smp := range measured {
		byID[smp.ID] = i
	}
	var order []sim.Truth
	for _, tr := range s.Sim("sim").Truth() {
		if _, ok := byID[tr.ID]; ok {
			order = append(order, tr)
		}
	}
	hits := 0
	for k, tr := range order {
		r := rows[byID[tr.ID]]
		want := 0
		for _, earlier := range order[:k] {
			common := sharedWords(r, rows[byID[earlier.ID]], trace.DefaultBlock)
			want = max(want, common/sim.CacheBlock*sim.CacheBlock)
		}
		want = min(want, (r.Input-1)/sim.CacheBlock*sim.CacheBlock)
		if want > 0 {
			hits++
		}
		assert.Equal(t, want, tr.CachedTokens, "line %d (hash ids %v): cached tokens", r.Line, r.Hashes)
	}
	t.Logf("%d of %d requests found a shared prefix", hits, len(order))
	assert.Greater(t, hits, len(order)/4, "the shipped trace shares prefixes")

	var out bytes.Buffer
	report.Verdicts(&out, []objective.Verdict{objective.Judge(measured, nil)})
	assert.Contains(t, out.String(), "open loop (chat endpoint=sim trace=sample.mooncake speedup=4): sent at")
	assert.Contains(t, out.String(), "trace (chat endpoint=sim trace=sample.mooncake speedup=4): sent at")
	// The simulator takes vLLM's ignore_eos: each row's output length is
	// what it sent, with no tokens= in its spec, and the replay says so.
	assert.Contains(t, out.String(), "output tokens 73.0 received of 73.0 asked")
	assert.NotContains(t, out.String(), "prompt tokens 0", "the prompts are the rows' lengths")
	assert.NotContains(t, out.String(), "off what the trace asked", "the lengths are what the rows asked")
}

// sharedWords is how many leading words the prompts of rows a and b have
// in common: block by block of their leading equal hash ids, each to the
// shorter prompt's end.
func sharedWords(a, b trace.Row, block int) int {
	n := 0
	for k := 0; k < min(len(a.Hashes), len(b.Hashes)) && a.Hashes[k] == b.Hashes[k]; k++ {
		end := min((k+1)*block, a.Input, b.Input)
		if end <= n {
			break
		}
		n = end
		if end < (k+1)*block {
			break
		}
	}
	return n
}

// TestTraceCapacityBySpeedup: a capacity search by speedup replays the
// trace at each step (every row, labelled with the step's speedup), and
// the limit it finds is one the simulator could carry: the trace's rate at
// that speedup within the service rate its slots give, by the truth's
// service times.
func TestTraceCapacityBySpeedup(t *testing.T) {
	const slots = 2
	spec := shippedTrace(t)
	spec.End = 10 * time.Second
	s, cfg := simSession(t, "slots=2,ttft=20ms,prefill=0s,tpot=0s,tokens=1,jitter=0")
	fix, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	tr, err := load.NewTrace(spec, 1)
	require.NoError(t, err)
	c := config.DefaultCapacity()
	c.By, c.Start, c.Max, c.Resolution = "speedup", 2, 64, 0.1
	conf := config.Scenario{Samples: 5, Loads: []load.Pacer{tr}, Capacity: &c,
		Objectives: objective.MustParse(map[string]float64{"ttft_p95_ms": 60, "error_rate_max": 0})}
	r, err := s.Capacity(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Fixture: fix})
	require.NoError(t, err)
	t.Log(report.CapacityLine("chat", "sim", c.By, c.Resolution, r))
	require.Greater(t, r.Limit, 2.0, "a trace at 10 req/s, twice as fast, is far below 100 req/s of service")
	require.NotZero(t, r.Beyond, "the search found a speedup that failed")
	truth := s.Sim("sim").Truth()
	assert.Len(t, truth, calibrationRequests+1+len(r.Steps)*tr.Sum.Rows, "the endpoint's count of words, the cold request, then each step the trace's rows")
	var service []float64
	for _, tr := range truth[calibrationRequests:] {
		service = append(service, stats.Ms(tr.Last.Sub(tr.Received)-tr.QueueWait))
	}
	carried := slots / (stats.Describe(service).Mean / 1000) // req/s
	rate := float64(tr.Sum.Rows-1) / tr.Sum.Span.Seconds()
	t.Logf("truth: %.1f req/s of service; the trace's %.2f req/s × %.2f = %.1f req/s", carried, rate, r.Limit, rate*r.Limit)
	assert.LessOrEqual(t, rate*r.Limit, carried*1.05, "a limit above what the simulator could carry")
	assert.Equal(t, "max-speedup", c.Unit())
}

// replayShipped replays spec 4× faster on a new session's simulator with
// a prefix cache, answering 4 tokens (max_tokens is checked against its
// truth; generating every token asked would be CPU the client's schedule
// shares on this machine), and returns the session and the measured
// samples.
func replayShipped(t *testing.T, spec trace.Spec, rows int) (*Session, []sample.Sample) {
	t.Helper()
	s, cfg := simSession(t, "ttft=1ms,tpot=1ms,jitter=0,cache=1000000") // no tokens=: the rows ask their lengths
	fix, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	tr, err := load.NewTrace(spec, 4)
	require.NoError(t, err)
	conf := config.Scenario{Samples: 5, MaxTokens: 8, Loads: []load.Pacer{tr}}
	lv := conf.Levels()[0]
	n := conf.Requests(lv)
	require.Equal(t, rows, n, "the level sends the trace's rows, whatever samples says")
	samples, err := s.Measure(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: lv, Fixture: fix}, n)
	require.NoError(t, err)
	measured := slices.DeleteFunc(samples, func(x sample.Sample) bool { return !x.Measured() })
	require.Len(t, measured, rows)
	return s, measured
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestBreakdownOfTheLevel: an Ollama breakdown of a trace level sends the
// trace's rows (their prompt lengths, their max_tokens), not the
// fixture's short prompts (issue 32: a trace's 7 s TTFT beside the
// fixture's 1.3 ms prefill), and is kept apart from the scenario's.
func TestBreakdownOfTheLevel(t *testing.T) {
	var words, predict []int
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("/api/chat", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string }
			Options  struct {
				NumPredict int `json:"num_predict"`
			}
		}
		json.NewDecoder(r.Body).Decode(&req)
		n := 0
		for _, m := range req.Messages {
			n += len(strings.Fields(m.Content))
		}
		mu.Lock()
		words, predict = append(words, n), append(predict, req.Options.NumPredict)
		mu.Unlock()
		io.WriteString(w, `{"message":{"content":"a"}}`+"\n"+`{"message":{"content":""},"done":true,"load_duration":1,"prompt_eval_count":3,`+
			`"prompt_eval_duration":2,"eval_count":1,"eval_duration":4,"total_duration":12}`+"\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ep := stream.Endpoint{Name: "local", BaseURL: srv.URL + "/v1", Model: "tiny", Kind: "ollama"}
	s, err := New(&config.Config{Source: "test", Endpoints: []stream.Endpoint{ep}, Scenarios: config.Presets()}, Run{}, Options{})
	require.NoError(t, err)
	defer s.Close()
	fix, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	spec := shippedTrace(t)
	var rows []trace.Row
	require.NoError(t, trace.Each(spec, func(r trace.Row, _ time.Duration) error { rows = append(rows, r); return nil }))
	tr, err := load.NewTrace(spec, 1)
	require.NoError(t, err)
	conf := config.Scenario{MaxTokens: 8, Loads: []load.Pacer{tr}}
	_, err = s.Breakdown(context.Background(), Cell{Scenario: "chat", Endpoint: ep, Settings: conf, Level: conf.Levels()[0], Fixture: fix}, 3, false)
	require.NoError(t, err)
	require.Len(t, words, 3)
	for i := range 3 {
		assert.InEpsilon(t, rows[i].Input, words[i], 0.15, "request %d: the row's prompt length", i)
		assert.Equal(t, rows[i].Output, predict[i], "request %d: the row's max_tokens", i)
	}
	plain := config.Scenario{MaxTokens: 8}
	_, err = s.Breakdown(context.Background(), Cell{Scenario: "chat", Endpoint: ep, Settings: plain, Fixture: fix}, 3, false)
	require.NoError(t, err)
	require.Len(t, words, 6, "the fixture's breakdown is not the trace level's, kept")
	assert.Less(t, words[3], 60, "the fixture's short prompts")
	assert.Equal(t, 8, predict[3])
}
