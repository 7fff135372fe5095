package server

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// metricsReading is a reading of the metrics source at phase, i seconds
// in, holding series (absolute: run through deltas as a watch does).
func metricsReading(p Phase, i int, series ...Series) *Reading {
	return &Reading{Source: SourceMetrics, Scenario: "chat", Endpoint: "e", Run: "r.1", Phase: p, At: t0.Add(time.Duration(i) * time.Second), Series: series}
}

func gauge(name string, v float64) Series   { return Series{Name: name, Type: Gauge, Value: v} }
func counter(name string, v float64) Series { return Series{Name: name, Type: Counter, Value: v} }
func histogram(name string, le []float64, cum ...float64) Series {
	return Series{Name: name, Type: Histogram, Le: le, Counts: cum}
}

// window runs readings through deltas and a window, as a watch does.
func window(readings ...*Reading) *Window {
	d := &deltas{last: map[string]Series{}}
	w := NewWindow()
	for _, rd := range readings {
		if rd.OK() {
			d.apply(rd)
		}
		w.Add(rd)
	}
	return w
}

// TestWindowFigures: gauges from the readings during the level, counters
// and histograms from the increase between the readings before and
// after, a counter that went back counted from 0.
func TestWindowFigures(t *testing.T) {
	le := []float64{0.1, 0.5}
	w := window(
		metricsReading(Before, 0, gauge("vllm:num_requests_waiting", 9), counter("vllm:request_success_total", 100),
			histogram("vllm:time_to_first_token_seconds", le, 10, 20, 30)),
		metricsReading(During, 1, gauge("vllm:num_requests_waiting", 2), gauge("vllm:num_requests_running", 4),
			gauge("vllm:kv_cache_usage_perc", 0.25), counter("vllm:request_success_total", 110),
			histogram("vllm:time_to_first_token_seconds", le, 12, 25, 36)),
		metricsReading(During, 2, gauge("vllm:num_requests_waiting", 5), gauge("vllm:num_requests_running", 3),
			gauge("vllm:kv_cache_usage_perc", 0.5), counter("vllm:request_success_total", 3), // a restart
			histogram("vllm:time_to_first_token_seconds", le, 13, 26, 38)),
		metricsReading(After, 3, gauge("vllm:num_requests_waiting", 0), counter("vllm:request_success_total", 5),
			histogram("vllm:time_to_first_token_seconds", le, 13, 26, 40)),
	)
	srv := w.Server()
	assert.Equal(t, []float64{2, 5}, srv.Queue, "the readings during the level only: not the idle 9 before, 0 after")
	assert.Equal(t, 5.0, srv.QueueMax)
	assert.Equal(t, 4.0, srv.RunningMax)
	assert.Equal(t, 0.5, srv.KVPeak)
	assert.Equal(t, 10.0+3+2, srv.Requests, "110−100, then 3 from a restart, then 5−3")
	assert.Contains(t, srv.Notes, `metrics: counter vllm:request_success_total{} went back (a restart?): counted from 0`)
	assert.Equal(t, []float64{3, 3, 4}, srv.TTFT.Counts, "per bucket: (12,25,36)−(10,20,30), then +1,+1,+2, then +0,+0,+2")
	assert.Equal(t, 4, srv.Readings)
}

// TestWindowFailClosed: a counter is measured only when the readings
// before and after the level were both taken and held it; else it is not
// measured, and the notes say why.
func TestWindowFailClosed(t *testing.T) {
	ok := func(p Phase, i int, v float64) *Reading {
		return metricsReading(p, i, counter("vllm:request_success_total", v), gauge("vllm:num_requests_waiting", 1))
	}
	failed := func(p Phase, i int) *Reading {
		rd := metricsReading(p, i)
		rd.Err = "no answer in time (the reading's timeout)"
		return rd
	}
	cases := map[string]struct {
		readings []*Reading
		note     string
	}{
		"before failed": {[]*Reading{failed(Before, 0), ok(During, 1, 5), ok(After, 2, 9)},
			"metrics: the reading before the level failed: its counters' and histograms' increases are not measured"},
		"after failed": {[]*Reading{ok(Before, 0, 1), ok(During, 1, 5), failed(After, 2)},
			"metrics: the reading after the level failed: its counters' and histograms' increases are not measured"},
		"vanished": {[]*Reading{ok(Before, 0, 1), ok(During, 1, 5), metricsReading(After, 2, gauge("vllm:num_requests_waiting", 0))},
			"metrics: vllm:request_success_total vanished during the level: its increase is not measured"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := window(tc.readings...).Server()
			assert.True(t, math.IsNaN(srv.Requests), "requests %v", srv.Requests)
			assert.Contains(t, srv.Notes, tc.note)
			assert.Equal(t, []float64{1}, srv.Queue, "the gauges read are measured all the same")
		})
	}
	t.Run("a failed reading during", func(t *testing.T) {
		srv := window(ok(Before, 0, 1), failed(During, 1), ok(After, 2, 9)).Server()
		assert.Equal(t, 8.0, srv.Requests, "the increase spans the failed reading")
		assert.Equal(t, 1, srv.Failed)
		assert.Equal(t, []string{"metrics during: no answer in time (the reading's timeout)"}, srv.Errors)
	})
	t.Run("no reading during", func(t *testing.T) {
		srv := window(ok(Before, 0, 1), ok(After, 1, 3)).Server()
		assert.Equal(t, 2.0, srv.Requests)
		assert.True(t, math.IsNaN(srv.QueueP95()))
		assert.Contains(t, srv.Notes, "metrics: no reading during the level (shorter than server_metrics.every): its queue, running and KV figures are not measured")
	})
}

// TestWindowOllamaAndProcess: the memory figures come from every reading
// of their own sources (a /metrics' process_* is its own process's, not
// these).
func TestWindowOllamaAndProcess(t *testing.T) {
	ps := func(p Phase, i int, size, vram float64) *Reading {
		return &Reading{Source: SourceOllama, Scenario: "chat", Endpoint: "e", Run: "r.1", Phase: p, At: t0.Add(time.Duration(i) * time.Second),
			Series: []Series{{Name: OllamaSize, Type: Gauge, Labels: `model="tiny:latest"`, Value: size},
				{Name: OllamaVRAM, Type: Gauge, Labels: `model="tiny:latest"`, Value: vram}}}
	}
	proc := func(p Phase, i int, rss, cpu float64) *Reading {
		return &Reading{Source: SourceProcess, Scenario: "chat", Endpoint: "e", Run: "r.1", Phase: p, At: t0.Add(time.Duration(i) * time.Second),
			Series: []Series{{Name: ProcessRSS, Type: Gauge, Value: rss}, {Name: ProcessCPU, Type: Counter, Value: cpu}}}
	}
	srv := window(ps(Before, 0, 3e6, 1e6), ps(After, 2, 2e6, 1e6),
		proc(Before, 0, 50e6, 10), proc(During, 1, 80e6, 10.5), proc(After, 2, 60e6, 11),
		metricsReading(During, 1, gauge(ProcessRSS, 999e6))).Server()
	assert.Equal(t, 3e6, srv.ModelMem)
	assert.Equal(t, 1e6, srv.ModelVRAM)
	assert.Equal(t, []string{"tiny:latest: size 3.0 MB, 1.0 MB in VRAM"}, srv.Models)
	assert.Equal(t, 80e6, srv.RSS, "the process source's, not the /metrics' process_resident_memory_bytes")
	assert.InDelta(t, 1.0, srv.CPU, 1e-9)
	assert.Equal(t, 2*time.Second, srv.Wall)
	assert.InDelta(t, 0.5, srv.CPUCores(), 1e-9)
}

// TestFiguresMergeRuns: the runs of one level merge (counters add, peaks
// take the higher), runs of other levels stay apart.
func TestFiguresMergeRuns(t *testing.T) {
	run := func(id, level string, waiting, from, to float64, sent int) []Reading {
		var out []Reading
		for _, rd := range []*Reading{
			metricsReading(Before, 0, counter("vllm:request_success_total", from)),
			metricsReading(During, 1, gauge("vllm:num_requests_waiting", waiting), counter("vllm:request_success_total", from+1)),
			metricsReading(After, 2, counter("vllm:request_success_total", to)),
		} {
			rd.Run, rd.Level = id, sample.Level("concurrency="+level)
			out = append(out, *rd)
		}
		out[2].Sent = sent
		d := &deltas{last: map[string]Series{}}
		for i := range out {
			d.apply(&out[i])
		}
		return out
	}
	var all []Reading
	all = append(all, run("a.1", "1", 2, 0, 10, 10)...)
	all = append(all, run("a.2", "2", 7, 10, 30, 20)...)
	all = append(all, run("a.3", "1", 4, 30, 41, 10)...)
	figs := Figures(all)
	require.Len(t, figs, 2)
	one := figs[Key{"chat", "e", "concurrency=1"}]
	assert.Equal(t, 21.0, one.Requests)
	assert.Equal(t, 20, one.Sent)
	assert.Equal(t, 4.0, one.QueueMax)
	assert.InDelta(t, 0.05, one.Foreign(), 1e-9, "21 finished for 20 sent")
	assert.Equal(t, 20.0, figs[Key{"chat", "e", "concurrency=2"}].Requests)
}
