package session

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// The server's side of a level, held to the simulator's truth: what its
// /metrics served at each scrape (sim.Server.Scrapes) and what each
// request did (sim.Server.Truth).

// serverRun is one level measured on a simulator whose /metrics is read
// every 20 ms, with what the run recorded.
type serverRun struct {
	s       *Session
	srv     *sim.Server
	samples []sample.Sample
	v       objective.Verdict
	file    string
}

// measureServer measures n requests of chat at level lv on a simulator
// of spec, its server read as conf says (every 20 ms unless set), judged
// against objectives.
func measureServer(t *testing.T, spec string, conf server.Config, lv config.Level, n int, objectives map[string]float64) serverRun {
	t.Helper()
	if conf.Every == 0 {
		conf.Every = 20 * time.Millisecond
	}
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": spec}, Servers: map[string]server.Config{"sim": conf}}
	file := filepath.Join(t.TempDir(), "run.server.jsonl")
	s, err := New(cfg, Run{}, Options{Server: file})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	src, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	sc := cfg.Scenario("chat", "sim")
	sc.Warmup, sc.MaxTokens = 2, 16
	sc.Objectives = objective.MustParse(objectives)
	cell := Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: sc, Level: lv, Fixture: src}
	samples, err := s.Measure(context.Background(), cell, n)
	require.NoError(t, err)
	v := objective.JudgeServer(samples, sc.Objectives, s.Concerns().Servers.Of(samples))
	return serverRun{s: s, srv: s.Sim("sim"), samples: samples, v: v, file: file}
}

// measured is the truth of the run's measured requests.
func (r serverRun) measured() []sim.Truth {
	ids := map[string]bool{}
	for _, smp := range r.samples {
		if smp.Measured() {
			ids[smp.ID] = true
		}
	}
	var out []sim.Truth
	for _, tr := range r.srv.Truth() {
		if ids[tr.ID] {
			out = append(out, tr)
		}
	}
	return out
}

// during is what /metrics served during the level: every scrape but the
// session's probe, the reading before the level and the one after.
func (r serverRun) during(t *testing.T) []sim.Scrape {
	t.Helper()
	sc := r.srv.Scrapes()
	require.GreaterOrEqual(t, len(sc), 4, "the probe, the reading before, one during, the one after")
	return sc[2 : len(sc)-1]
}

// TestServerFiguresEqualTruth: queue depth (p95, max), running requests,
// KV usage peak and the request counter per level equal what the
// simulator served, and its TTFT and e2e percentiles from its histograms
// hold the simulator's own percentiles of the same requests between
// their bucket bounds; the client and the server agree, so the level
// passes the implied agreement objective.
func TestServerFiguresEqualTruth(t *testing.T) {
	r := measureServer(t, "ttft=30ms,tpot=4ms,tokens=12,jitter=0.3,slots=3,cache=256,seed=5", server.Config{}, closed(8), 64,
		map[string]float64{"error_rate_max": 0})
	st := r.v.Stats
	srv := st.Server
	require.NotNil(t, srv, "no server figures: %v", r.s.Concerns().Servers.Sources(stream.Endpoint{Name: "sim"}))
	t.Log(report.ServerLine(st))

	var waiting, running, kv []float64
	for _, sc := range r.during(t) {
		waiting, running, kv = append(waiting, float64(sc.Waiting)), append(running, float64(sc.Running)), append(kv, sc.KVUsage)
	}
	assert.Equal(t, slices.Max(waiting), srv.QueueMax, "queue max")
	assert.Greater(t, srv.QueueMax, 0.0, "8 workers on 3 slots: a queue")
	assert.Equal(t, stats.Percentile(sorted(waiting), 95), srv.QueueP95(), "queue p95")
	assert.Equal(t, slices.Max(running), srv.RunningMax, "running max")
	assert.Equal(t, 3.0, srv.RunningMax, "3 slots, always full under 8 workers")
	assert.InDelta(t, slices.Max(kv), srv.KVPeak, 1e-12, "kv peak")

	truth := r.measured()
	require.Len(t, truth, 64)
	assert.Equal(t, 64, srv.Sent)
	assert.Equal(t, 64.0, srv.Requests, "request_success over the level: the measured requests, not the warm-up")
	var ttft, e2e []float64
	var prompt, cached float64
	for _, tr := range truth {
		ttft = append(ttft, tr.FirstReady.Sub(tr.Received).Seconds())
		e2e = append(e2e, tr.Last.Sub(tr.Received).Seconds())
		prompt, cached = prompt+float64(tr.PromptTokens), cached+float64(tr.CachedTokens)
	}
	assert.InDelta(t, cached/prompt, srv.PrefixHit(), 1e-12, "prefix hit rate")
	for _, h := range []struct {
		name  string
		truth []float64
		b     stats.Buckets
	}{{"ttft", ttft, srv.TTFT}, {"e2e", e2e, srv.E2E}} {
		require.Equal(t, 64.0, h.b.N(), "%s histogram count", h.name)
		for _, p := range []float64{50, 90, 95, 99} {
			want := stats.Percentile(sorted(h.truth), p)
			lo, hi, ok := h.b.Within(p)
			require.True(t, ok)
			assert.True(t, lo <= want && want <= hi, "%s p%.0f: truth %.4f s outside (%g, %g]", h.name, p, want, lo, hi)
		}
	}
	assert.True(t, r.v.Objectives.Has("ttft_gap"), "the agreement objective is implied: %v", r.v.Objectives)
	assert.Empty(t, r.v.Violations, "a simulator that tells the truth agrees with the client")
	assert.Equal(t, 0.0, srv.Foreign(), "no foreign load")
}

// closed is a closed-loop level of c workers over the fixture.
func closed(c int) config.Level { return config.Level{Pacer: load.Closed(c)} }

// synthetic is a closed-loop level of c workers asking synthetic prompts,
// which the simulator answers with its own tokens (tokens=N).
func synthetic(c int) config.Level { return config.Level{Pacer: load.Closed(c), PromptTokens: 32} }

func sorted(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// TestServerFileEqualsSession: the figures read back from the server file
// are those the session computed as it read, and every line is a reading
// Read accepts.
func TestServerFileEqualsSession(t *testing.T) {
	r := measureServer(t, "ttft=20ms,tpot=2ms,tokens=8,slots=2", server.Config{}, closed(4), 24, map[string]float64{"error_rate_max": 0})
	r.s.Close()
	readings, err := server.Read(r.file)
	require.NoError(t, err)
	require.NotEmpty(t, readings)
	assert.Equal(t, server.Before, readings[0].Phase)
	assert.Equal(t, server.After, readings[len(readings)-1].Phase)
	figs := server.Figures(readings)
	got := figs[server.Key{Scenario: "chat", Endpoint: "sim", Level: r.samples[len(r.samples)-1].Level}]
	require.NotNil(t, got, "levels in the file: %v", figs)
	want := r.v.Stats.Server
	assert.Equal(t, report.ServerLine(&stats.Stats{Server: want}), report.ServerLine(&stats.Stats{Server: got}))
	assert.Equal(t, want.Requests, got.Requests)
	assert.Equal(t, want.TTFT, got.TTFT)
	assert.Equal(t, want.Queue, got.Queue)
}

// TestServerHistogramLieFails: a simulator whose TTFT histogram observes
// twice the real TTFT fails the level, naming the disagreement with both
// figures; the truthful one passes (TestServerFiguresEqualTruth).
func TestServerHistogramLieFails(t *testing.T) {
	r := measureServer(t, "ttft=50ms,tpot=1ms,tokens=6,jitter=0.05,metrics_lie=2", server.Config{}, closed(2), 30, map[string]float64{"error_rate_max": 0})
	var gap *objective.Violation
	for i, v := range r.v.Violations {
		if v.Threshold.Name == "ttft_gap" {
			gap = &r.v.Violations[i]
		}
	}
	require.NotNil(t, gap, "the lie must fail the implied agreement: %v", r.v.Violations)
	line := gap.String()
	t.Log(line)
	assert.Contains(t, line, "client and server disagree about TTFT")
	assert.Regexp(t, `client ttft p50 \d+`, line)
	assert.Regexp(t, `server ttft p50 in \(\d+, \d+\] ms`, line)
}

// TestServerForeignLoad: a server counting 20% more requests than the
// client sent is detected as such: a warning by default, a failure on an
// exclusive endpoint.
func TestServerForeignLoad(t *testing.T) {
	for name, exclusive := range map[string]bool{"shared": false, "exclusive": true} {
		t.Run(name, func(t *testing.T) {
			r := measureServer(t, "ttft=5ms,tpot=1ms,tokens=4,metrics_foreign=0.2", server.Config{Exclusive: exclusive}, closed(4), 50,
				map[string]float64{"error_rate_max": 0})
			srv := r.v.Stats.Server
			require.NotNil(t, srv)
			// Foreign requests accrue as a share of the real ones, exact to
			// one request at every scrape.
			assert.InDelta(t, 0.2, srv.Foreign(), 1.0/50+1e-9, "foreign share: %s", srv.ForeignText())
			var out bytes.Buffer
			if exclusive {
				// The configuration turns exclusive into foreign_max: 0.
				conf := config.Config{Servers: map[string]server.Config{"sim": {Exclusive: true}}, Scenarios: config.Presets()}
				o := conf.Objectives("chat", "sim")
				v := objective.JudgeServer(r.samples, o, srv)
				require.NotEmpty(t, v.Violations)
				assert.Contains(t, violationsText(v), "foreign +20% > +0%")
				report.Verdicts(&out, []objective.Verdict{v})
				assert.NotContains(t, out.String(), "WARNING (chat endpoint=sim concurrency=4): foreign load")
				return
			}
			assert.Empty(t, r.v.Violations)
			report.Verdicts(&out, []objective.Verdict{r.v})
			// 60, to one request as the share above (59 once beside two
			// CPU-bound processes: the last scrape before the level ended).
			assert.Regexp(t, `WARNING \(chat endpoint=sim concurrency=4\): foreign load: the server finished (59|60|61) requests over the level, 50 sent here`, out.String())
		})
	}
}

func violationsText(v objective.Verdict) string {
	var b bytes.Buffer
	for _, viol := range v.Violations {
		b.WriteString(viol.String() + "\n")
	}
	return b.String()
}

// TestTokensDisagreeFails: tokens_disagree_max 0.01 fails on a simulator
// whose usage is 5 tokens over the stream on 10% of requests, naming the
// count, which equals the simulator's truth.
func TestTokensDisagreeFails(t *testing.T) {
	r := measureServer(t, "ttft=1ms,tpot=0s,tokens=6,usage_off=5:0.1,seed=3", server.Config{Off: true}, synthetic(4), 100,
		map[string]float64{"tokens_disagree_max": 0.01})
	off := 0
	for _, tr := range r.measured() {
		if tr.UsageOff != 0 {
			off++
		}
	}
	require.Greater(t, off, 2, "the simulator put usage off on some requests")
	st := r.v.Stats
	assert.Equal(t, 100, st.Tokens.Checked)
	assert.Equal(t, off, st.Tokens.Disagree, "the disagreeing requests are those the simulator put off")
	text := violationsText(r.v)
	assert.Contains(t, text, "tokens disagree")
	assert.Contains(t, text, " > 1% (n=100; ")
	assert.Contains(t, text, strconv.Itoa(off)+" of 100 requests: usage and streamed chunks disagree, 0 with the client's own count used")
	assert.Regexp(t, `seq \d+ chatcmpl-sim-\d+: usage 11 > 6 chunks \+ 1 allowed`, text)
}

// TestTokensBelowChunksSwitch: usage below the chunks is a disagreement
// too, and the request is named as the one where the client used its own
// count.
func TestTokensBelowChunksSwitch(t *testing.T) {
	r := measureServer(t, "ttft=1ms,tpot=0s,tokens=6,usage_off=-2:0.5,seed=3", server.Config{Off: true}, synthetic(4), 40,
		map[string]float64{"tokens_disagree_max": 0.01})
	st := r.v.Stats
	require.Greater(t, st.Tokens.Disagree, 0)
	assert.Equal(t, st.Tokens.Disagree, st.Tokens.Switched)
	assert.Equal(t, st.Tokens.Disagree, st.TokensEstimated, "each switch is a count of the client's own")
	assert.Regexp(t, `usage 4 < 6 chunks, the client's count used`, violationsText(r.v))
}

// TestServerVanishedFamily: a TTFT histogram that disappears mid-level
// leaves the server's TTFT not measured, and says so, rather than short.
func TestServerVanishedFamily(t *testing.T) {
	r := measureServer(t, "ttft=10ms,tpot=2ms,tokens=10,metrics_vanish=3", server.Config{}, closed(2), 30, map[string]float64{"srv_ttft_p95_ms": 1000})
	srv := r.v.Stats.Server
	require.NotNil(t, srv)
	assert.Equal(t, 0.0, srv.TTFT.N())
	assert.False(t, math.IsNaN(srv.Requests), "the other counters are measured")
	assert.Contains(t, srv.Notes, "metrics: vllm:time_to_first_token_seconds vanished during the level: its percentiles are not measured")
	assert.Contains(t, violationsText(r.v), "srv ttft p95 not measured")
}
