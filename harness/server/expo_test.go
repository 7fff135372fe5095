package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sim"
)

// read parses an exposition as a scrape does.
func read(t *testing.T, body string) (Reading, error) {
	t.Helper()
	var rd Reading
	err := readExposition(strings.NewReader(body), &rd)
	return rd, err
}

func find(rd Reading, name string) []Series {
	var out []Series
	for _, s := range rd.Series {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestExposition: the shapes servers write — counters named with and
// without _total, histograms, untyped samples, labels holding braces and
// quotes — read as their families, non-numbers dropped; a malformed body
// fails the reading.
func TestExposition(t *testing.T) {
	body := `# HELP vllm:num_requests_waiting Waiting.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="a}b\"c"} 3.0
vllm:num_requests_waiting{engine="1",model_name="x"} 2.0
# TYPE vllm:request_success_total counter
vllm:request_success_total{finished_reason="stop"} 10.0
# TYPE sglang:num_requests_total counter
sglang:num_requests_total 7
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.1"} 1.0
vllm:time_to_first_token_seconds_bucket{le="0.5"} 3.0
vllm:time_to_first_token_seconds_bucket{le="+Inf"} 4.0
vllm:time_to_first_token_seconds_count 4.0
vllm:time_to_first_token_seconds_sum 1.5
untyped_thing 5
# TYPE nan_gauge gauge
nan_gauge NaN
# EOF
`
	rd, err := read(t, body)
	require.NoError(t, err)
	w := find(rd, "vllm:num_requests_waiting")
	require.Len(t, w, 2)
	assert.Equal(t, `engine="0",model_name="a}b\"c"`, w[0].Labels)
	assert.Equal(t, 3.0, w[0].Value)
	assert.Equal(t, Counter, find(rd, "vllm:request_success_total")[0].Type)
	assert.Equal(t, 7.0, find(rd, "sglang:num_requests_total")[0].Value)
	h := find(rd, "vllm:time_to_first_token_seconds")
	require.Len(t, h, 1)
	assert.Equal(t, []float64{0.1, 0.5}, h[0].Le)
	assert.Equal(t, []float64{1, 3, 4}, h[0].Counts)
	assert.Equal(t, 1.5, h[0].Sum)
	assert.Equal(t, Untyped, find(rd, "untyped_thing")[0].Type)
	assert.Empty(t, find(rd, "nan_gauge"), "NaN is no figure, and JSON cannot hold it")
	assert.Equal(t, 6, rd.Families)
	assert.Equal(t, 7, rd.SeriesSeen)
	assert.False(t, rd.Sampled)

	for name, bad := range map[string]string{
		"second TYPE":            "# TYPE a gauge\na 1\n# TYPE a counter\na 2\n",
		"not a number":           "a one\n",
		"long line":              "a{l=\"" + strings.Repeat("x", MaxExpoLine) + "\"} 1\n",
		"histogram out of order": "# TYPE h histogram\nh_bucket{le=\"1\"} 5\nh_bucket{le=\"+Inf\"} 3\nh_count 3\nh_sum 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := read(t, bad)
			assert.Error(t, err)
		})
	}
}

// TestExpositionLimits: past MaxFamilies families and MaxSeries series
// the others are counted, not kept; the figures' families are kept
// whole (up to MaxSeriesPerFamily series) wherever they come.
func TestExpositionLimits(t *testing.T) {
	var b strings.Builder
	for f := range MaxFamilies + 10 {
		b.WriteString("# TYPE other_" + itoa(f) + " gauge\n")
		for s := range 20 {
			b.WriteString("other_" + itoa(f) + `{s="` + itoa(s) + `"} 1` + "\n")
		}
	}
	b.WriteString("# TYPE vllm:num_requests_running gauge\n")
	for s := range MaxSeriesPerFamily + 5 {
		b.WriteString(`vllm:num_requests_running{engine="` + itoa(s) + `"} 1` + "\n")
	}
	rd, err := read(t, b.String())
	require.NoError(t, err)
	assert.True(t, rd.Sampled)
	assert.Equal(t, MaxFamilies+11, rd.Families)
	assert.Equal(t, (MaxFamilies+10)*20+MaxSeriesPerFamily+5, rd.SeriesSeen)
	other := 0
	for _, s := range rd.Series {
		if strings.HasPrefix(s.Name, "other_") {
			other++
		}
	}
	assert.Equal(t, MaxSeries, other, "other series kept up to MaxSeries")
	assert.Len(t, find(rd, "vllm:num_requests_running"), MaxSeriesPerFamily, "a figure's family past the others' limits, whole up to its own")
}

func itoa(n int) string { return strconv.Itoa(n) }

// hundredK is a simulator exposing 100,000 series beside vLLM's.
func hundredK(t testing.TB) string {
	cfg := sim.Default()
	cfg.MetricsSeries = 100_000
	_, url := sim.Start(t, cfg)
	u, err := MetricsURL(url)
	require.NoError(t, err)
	return u
}

// maxReadingLine is the stated size of one reading of a server exposing
// 100,000 series in the server file (docs/configuration.md).
const maxReadingLine = 128 << 10

// TestHundredThousandSeries: a server exposing 100,000 series is sampled,
// not copied: its reading is a line under 128 KiB holding every figure's
// family, and reading it holds the heap within 16 MiB of where it was,
// where parsing the same body whole takes several times that.
func TestHundredThousandSeries(t *testing.T) {
	u := hundredK(t)
	m := NewMetrics(u, nil)
	defer m.Close()
	var rd Reading
	peak := heapPeak(t, func() { require.NoError(t, m.Read(context.Background(), &rd)) })
	line, err := json.Marshal(&rd)
	require.NoError(t, err)
	t.Logf("100,000 series: %d bytes read, %d series seen in %d families, %d kept; a line of %d bytes; heap +%.1f MiB while reading",
		rd.Bytes, rd.SeriesSeen, rd.Families, len(rd.Series), len(line), float64(peak)/(1<<20))
	assert.GreaterOrEqual(t, rd.SeriesSeen, 100_000)
	assert.True(t, rd.Sampled)
	assert.Less(t, len(line), maxReadingLine)
	for _, fam := range []string{sim.MetricWaiting, sim.MetricRunning, sim.MetricKVUsage, sim.MetricTTFT, sim.MetricSuccess + "_total"} {
		assert.NotEmpty(t, find(rd, fam), "%s kept", fam)
	}
	assert.Less(t, peak, int64(16<<20), "the heap while reading 100,000 series")

	// The bound is one a copy would break: the same body parsed whole.
	resp, err := http.Get(u)
	require.NoError(t, err)
	var body bytes.Buffer
	_, err = body.ReadFrom(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	whole := heapPeak(t, func() {
		p := expfmt.NewTextParser(model.LegacyValidation)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(body.Bytes()))
		require.NoError(t, err)
		runtime.KeepAlive(fams)
	})
	t.Logf("parsed whole: heap +%.1f MiB", float64(whole)/(1<<20))
	assert.Greater(t, whole, 2*peak, "a copy of every series takes more than the filtered reading")
}

// heapPeak runs fn and returns the most the live heap grew while it ran,
// sampled every millisecond.
func heapPeak(t *testing.T, fn func()) int64 {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := int64(ms.HeapAlloc)
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if d := int64(ms.HeapAlloc) - base; d > peak.Load() {
				peak.Store(d)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	return peak.Load()
}

// TestFileLineBounded: a reading that would make a line over MaxLine is
// written with the figures' families alone, and read back.
func TestFileLineBounded(t *testing.T) {
	rd := Reading{Source: SourceMetrics, Scenario: "chat", Endpoint: "e", Run: "r.1", Phase: During, At: time.Now()}
	for i := range 5000 {
		rd.Series = append(rd.Series, Series{Name: "other_family", Labels: `x="` + strings.Repeat("y", 300) + itoa(i) + `"`, Type: Gauge, Value: 1})
	}
	rd.Series = append(rd.Series, Series{Name: sim.MetricWaiting, Type: Gauge, Value: 4})
	b, err := encode(&rd)
	require.NoError(t, err)
	assert.Less(t, len(b), MaxLine)
	var back Reading
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, back.Sampled)
	require.Len(t, back.Series, 1)
	assert.Equal(t, 4.0, back.Series[0].Value)
}

// BenchmarkExposition100k is one reading of a body of 100,000 series
// beside vLLM's families: what a scrape of such a server costs this
// process's CPU (the server's own cost of writing it aside).
func BenchmarkExposition100k(b *testing.B) {
	resp, err := http.Get(hundredK(b))
	require.NoError(b, err)
	var body bytes.Buffer
	_, err = body.ReadFrom(resp.Body)
	resp.Body.Close()
	require.NoError(b, err)
	b.ReportAllocs()
	b.SetBytes(int64(body.Len()))
	for b.Loop() {
		var rd Reading
		if err := readExposition(bytes.NewReader(body.Bytes()), &rd); err != nil {
			b.Fatal(err)
		}
	}
}
