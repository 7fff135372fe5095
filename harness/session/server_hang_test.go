package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// readingCase is how a level's server is read in the side-by-side runs:
// not at all, its /metrics, a /metrics that hangs, one of 100,000 series.
type readingCase struct {
	name string
	spec string // appended to the simulator's latency model
	conf server.Config
}

// Every 20 ms, fifty times a second, so that any cost shows; and the
// 100,000 series at the default interval too.
var readingCases = []readingCase{
	{"off", "", server.Config{Off: true}},
	{"on", "", server.Config{}},
	{"hang", ",metrics_hang=1", server.Config{}},
	{"series100k", ",metrics_series=100000", server.Config{}},
	{"series100k-every1s", ",metrics_series=100000", server.Config{Every: time.Second}},
}

// readingSession is a session on a simulator of 50 ms TTFT, 5 ms TPOT
// and 16 tokens, its /metrics read as rc says, every 20 ms unless set
// (named, so that a hanging one is scraped without a probe).
func readingSession(t testing.TB, rc readingCase) (*Session, Cell) {
	t.Helper()
	spec := "ttft=50ms,ttft_jitter=0.3,tpot=5ms,tpot_jitter=0.3,tokens=16,seed=3" + rc.spec
	conf := rc.conf
	if conf.Every == 0 {
		conf.Every = 20 * time.Millisecond
	}
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": spec}, Servers: map[string]server.Config{"sim": conf}}
	s, err := New(cfg, Run{}, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	if !conf.Off {
		// The simulator's URL is known once it serves; the session finds
		// an endpoint's sources at its first level.
		ep, _, _ := s.Endpoint("sim")
		u, err := server.MetricsURL(ep.BaseURL)
		require.NoError(t, err)
		cfg.Servers["sim"] = server.Config{URL: u, Every: conf.Every}
	}
	src, err := s.Source(Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"})
	require.NoError(t, err)
	sc := cfg.Scenario("chat", "sim")
	sc.Warmup, sc.MaxTokens = 0, 16
	sc.Objectives = objective.MustParse(map[string]float64{"error_rate_max": 0})
	lv := config.Level{Pacer: load.Closed(8), PromptTokens: 32}
	return s, Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: sc, Level: lv, Fixture: src}
}

// TestServerHangDelaysNothing: with a /metrics that never answers, every
// reading fails and is counted, the level's timings are as true as with no
// reading at all (the client's TTFT and end against the simulator's
// instants), and the level ends one reading's timeout after its last
// request at most.
func TestServerHangDelaysNothing(t *testing.T) {
	errs := map[string]stats.Summary{}
	for _, rc := range readingCases[:3] {
		s, c := readingSession(t, rc)
		start := time.Now()
		samples, err := s.Measure(context.Background(), c, 80)
		require.NoError(t, err)
		took := time.Since(start)
		var lastEnd time.Time
		for _, smp := range samples {
			if smp.End().After(lastEnd) {
				lastEnd = smp.End()
			}
		}
		ttft, total, err := s.Sim("sim").ReadingErrors(samples)
		require.NoError(t, err)
		errs[rc.name] = stats.Describe(ttft)
		tot := stats.Describe(total)
		srv := s.Concerns().Servers.Of(samples)
		t.Logf("%s: ttft reading error p50 %.0f µs p95 %.0f µs, total p95 %.0f µs; the level ended %v after its last request; server: %+v",
			rc.name, errs[rc.name].P50, errs[rc.name].P95, tot.P95, start.Add(took).Sub(lastEnd).Round(time.Millisecond), srvSummary(srv))
		if rc.name == "hang" {
			require.NotNil(t, srv)
			assert.Equal(t, srv.Readings, srv.Failed, "every reading of a hanging /metrics fails")
			assert.GreaterOrEqual(t, srv.Failed, 2)
			assert.Contains(t, strings.Join(srv.Errors, "; "), "no answer in time")
			assert.Less(t, start.Add(took).Sub(lastEnd), server.Timeout(20*time.Millisecond)+300*time.Millisecond,
				"the level waits for the reading after it one timeout at most")
		}
	}
	// The usual bounds of a reading on a busy 2-core machine: the hang
	// costs the measurement nothing a run without readings does not see.
	off, hang := errs["off"], errs["hang"]
	assert.Less(t, hang.P95, max(2*off.P95, off.P95+2000), "ttft reading error p95 with a hanging /metrics vs none (µs)")
	assert.Less(t, hang.P50, max(2*off.P50, off.P50+1000), "ttft reading error p50 (µs)")
}

func srvSummary(s *stats.Server) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprintf("%d readings, %d failed", s.Readings, s.Failed)
}

// BenchmarkServerReading is one request per iteration at concurrency 8
// against the in-process simulator, its server read as each case says,
// side by side: how far the client's first and last token readings are
// from the instants the simulator wrote them. A /metrics that hangs, or
// one of 100,000 series, must cost the measurement no more than reading
// none.
//
//	go test -run '^$' -bench ServerReading -benchtime 400x -count 5 ./harness/session/ | benchstat -col /metrics -
func BenchmarkServerReading(b *testing.B) {
	for _, rc := range readingCases {
		b.Run("metrics="+rc.name, func(b *testing.B) {
			s, c := readingSession(b, rc)
			samples, err := s.Measure(context.Background(), c, b.N)
			if err != nil {
				b.Fatal(err)
			}
			ttft, total, err := s.Sim("sim").ReadingErrors(samples)
			if err != nil {
				b.Fatal(err)
			}
			te, to := stats.Describe(ttft), stats.Describe(total)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(te.P50, "ttft-err-p50-us")
			b.ReportMetric(te.P95, "ttft-err-p95-us")
			b.ReportMetric(to.P95, "total-err-p95-us")
		})
	}
}
