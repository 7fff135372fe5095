package export_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/export"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// collector is a fake OTLP/HTTP receiver: it keeps every metrics request,
// or (hang) holds every request until the test ends.
type collector struct {
	mu       sync.Mutex
	requests []*colmetricpb.ExportMetricsServiceRequest
	hang     chan struct{}
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.hang != nil {
		select {
		case <-c.hang:
		case <-r.Context().Done():
		}
		return
	}
	b, _ := io.ReadAll(r.Body)
	var req colmetricpb.ExportMetricsServiceRequest
	if proto.Unmarshal(b, &req) == nil {
		c.mu.Lock()
		c.requests = append(c.requests, &req)
		c.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
	w.Write(out)
}

// point is one exported data point: its metric, attributes and value.
type point struct {
	metric string
	attrs  map[string]string
	value  float64
	count  uint64 // a histogram's
}

// points are every point received, the last of each series winning.
func (c *collector) points() []point {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []point
	for _, req := range c.requests {
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					out = append(out, pointsOf(m)...)
				}
			}
		}
	}
	return out
}

func pointsOf(m *metricpb.Metric) []point {
	var out []point
	attrs := func(kvs []*commonpb.KeyValue) map[string]string {
		out := map[string]string{}
		for _, kv := range kvs {
			out[kv.Key] = kv.Value.GetStringValue()
		}
		return out
	}
	switch d := m.Data.(type) {
	case *metricpb.Metric_Gauge:
		for _, p := range d.Gauge.DataPoints {
			v := p.GetAsDouble()
			if _, isInt := p.Value.(*metricpb.NumberDataPoint_AsInt); isInt {
				v = float64(p.GetAsInt())
			}
			out = append(out, point{metric: m.Name, attrs: attrs(p.Attributes), value: v})
		}
	case *metricpb.Metric_Histogram:
		for _, p := range d.Histogram.DataPoints {
			out = append(out, point{metric: m.Name, attrs: attrs(p.Attributes), value: p.GetSum(), count: p.Count})
		}
	}
	return out
}

// simSession is a session on one simulated endpoint, exporting to c.
func simSession(t *testing.T, c *collector, spec string) (*session.Session, *config.Config) {
	t.Helper()
	srv := httptest.NewServer(c)
	t.Cleanup(func() {
		if c.hang != nil {
			close(c.hang)
		}
		srv.Close()
	})
	t.Setenv(export.EnvEndpoint, srv.URL)
	t.Setenv(export.EnvInterval, "100")
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true, Kind: stream.KindVLLM}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": spec}}
	s, err := session.New(cfg, session.Run{}, session.Options{})
	require.NoError(t, err)
	return s, cfg
}

// measure sends chat's first level of n requests.
func measure(t *testing.T, s *session.Session, cfg *config.Config, n int) objective.Verdict {
	t.Helper()
	sc := session.Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"}
	fix, err := s.Source(sc)
	require.NoError(t, err)
	conf := cfg.Scenario("chat", "sim")
	c := session.Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: conf.Levels()[0], Fixture: fix}
	samples, err := s.Measure(context.Background(), c, n)
	require.NoError(t, err)
	return objective.JudgeServer(samples, conf.Objectives, s.Concerns().Servers.Of(samples))
}

// TestExportReceivesEveryFigure: a collector receives, for a measured
// level, every figure the verdict has (as its benchmark unit), every
// objective with its threshold, margin and whether it was met, and each
// measured request as gen_ai client metrics — the values the session
// judged, not others.
func TestExportReceivesEveryFigure(t *testing.T) {
	c := &collector{}
	s, cfg := simSession(t, c, "ttft=5ms,tpot=1ms,tokens=8,jitter=0")
	v := measure(t, s, cfg, 20)
	require.NoError(t, s.Close())
	pts := c.points()
	figures := map[string]float64{}
	objectives := map[string]map[string]float64{}
	durations := map[string]uint64{} // series → its cumulative count
	for _, p := range pts {
		switch p.metric {
		case "llmsla.level.figure":
			assert.Equal(t, "chat", p.attrs["llmsla.scenario"])
			assert.Equal(t, "concurrency=1", p.attrs["llmsla.level"])
			figures[p.attrs["llmsla.figure"]] = p.value
		case "llmsla.objective.value", "llmsla.objective.threshold", "llmsla.objective.margin", "llmsla.objective.met":
			k := p.attrs["llmsla.objective"]
			if objectives[k] == nil {
				objectives[k] = map[string]float64{}
			}
			objectives[k][p.metric] = p.value
		case "gen_ai.client.operation.duration":
			key := fmt.Sprint(p.attrs)
			durations[key] = max(durations[key], p.count)
			assert.Equal(t, "chat", p.attrs["gen_ai.operation.name"])
			assert.Equal(t, "sim", p.attrs["gen_ai.request.model"])
		}
	}
	var total uint64
	for _, n := range durations {
		total += n
	}
	assert.Equal(t, uint64(20), total, "one duration per measured request")
	for _, u := range metric.Units() {
		if want, ok := u.Bench(v.Stats); ok {
			assert.InDelta(t, want, figures[u.Unit()], 1e-9, "figure %s", u.Unit())
		}
	}
	require.NotEmpty(t, v.Objectives)
	for _, th := range v.Objectives {
		o := objectives[th.Key()]
		require.NotNil(t, o, "objective %s exported", th.Key())
		assert.Equal(t, th.Value, o["llmsla.objective.threshold"])
		got, _ := th.Of(v.Stats)
		assert.InDelta(t, got, o["llmsla.objective.value"], 1e-9)
		assert.Equal(t, 1.0, o["llmsla.objective.met"], "%s is met on a fast simulator", th.Key())
		assert.GreaterOrEqual(t, o["llmsla.objective.margin"], 0.0)
	}
}

// TestExportHangingCollector: with a collector that never answers, the
// level's requests are timed as without one (against the simulator's
// truth, within a bound of the machine's lateness), and Close returns
// within CloseTimeout: the export is off the measured path.
func TestExportHangingCollector(t *testing.T) {
	c := &collector{hang: make(chan struct{})}
	s, cfg := simSession(t, c, "ttft=20ms,tpot=1ms,tokens=8,jitter=0")
	start := time.Now()
	v := measure(t, s, cfg, 30)
	took := time.Since(start)
	assert.Equal(t, 30, v.Stats.Attempted)
	// 30 requests of ~27 ms one at a time: about 0.8 s; a stalled export
	// in the path would hold each for its timeout.
	assert.Less(t, took, 5*time.Second, "the level took %s", took)
	truth := s.Sim("sim").Truth()
	require.NotEmpty(t, truth)
	closed := time.Now()
	err := s.Close()
	assert.ErrorContains(t, err, "OpenTelemetry export", "a collector that never answered is said")
	assert.Less(t, time.Since(closed), export.CloseTimeout+2*time.Second, "Close waits for the collector at most CloseTimeout")
}

// BenchmarkExportOffThePath measures a level of 50 concurrent streams
// with no collector, one that answers and one that hangs, side by side:
// how far the client's TTFT and end are from the simulator's truth, and
// the client's CPU a request. The export must move none of them. One
// iteration is one request.
//
//	go test -run '^$' -bench ExportOffThePath -benchtime 400x -count 6 ./harness/export/ | benchstat -col /collector -
func BenchmarkExportOffThePath(b *testing.B) {
	for _, mode := range []string{"none", "answering", "hanging"} {
		b.Run("collector="+mode, func(b *testing.B) {
			c := &collector{}
			if mode == "hanging" {
				c.hang = make(chan struct{})
			}
			if mode == "none" {
				b.Setenv(export.EnvEndpoint, "")
			}
			s, cfg := benchSession(b, c, mode != "none")
			sc := session.Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"}
			fix, err := s.Source(sc)
			require.NoError(b, err)
			conf := cfg.Scenario("chat", "sim")
			conf.Warmup = 0
			lv := config.Level{Pacer: load.Closed(50)}
			cell := session.Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: lv, Fixture: fix}
			_, err = s.Probe(context.Background(), cell) // the connections
			require.NoError(b, err)
			s.Sim("sim").Reset()
			cpu0 := cpuTime()
			b.ResetTimer()
			samples, err := s.Measure(context.Background(), cell, b.N)
			b.StopTimer()
			cpu := cpuTime() - cpu0
			require.NoError(b, err)
			ttftErr, totalErr, err := s.Sim("sim").ReadingErrors(samples)
			require.NoError(b, err)
			te, to := stats.Describe(ttftErr), stats.Describe(totalErr)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(te.P50, "ttft-err-p50-us")
			b.ReportMetric(te.P95, "ttft-err-p95-us")
			b.ReportMetric(to.P95, "total-err-p95-us")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/req")
			s.Close()
		})
	}
}

// benchSession is simSession for a benchmark.
func benchSession(b *testing.B, c *collector, on bool) (*session.Session, *config.Config) {
	b.Helper()
	if on {
		srv := httptest.NewServer(c)
		b.Cleanup(func() {
			if c.hang != nil {
				close(c.hang)
			}
			srv.Close()
		})
		b.Setenv(export.EnvEndpoint, srv.URL)
		b.Setenv(export.EnvInterval, "100")
	}
	cfg := &config.Config{Source: "bench", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true, Kind: stream.KindVLLM}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": "ttft=50ms,tpot=10ms,tokens=8,jitter=0.3,seed=3"}}
	s, err := session.New(cfg, session.Run{}, session.Options{})
	require.NoError(b, err)
	return s, cfg
}

// cpuTime is the process's user and system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
