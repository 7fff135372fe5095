package sim

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The /metrics tests read the exposition with the Prometheus project's
// own text parser (github.com/prometheus/common/expfmt), which rejects a
// malformed line, a second TYPE or HELP for a family, a sample that does
// not fit its family's type, and histogram buckets out of order.

// wantTypes is every family /metrics serves (the extra series aside) as
// the parser names it, with its type.
var wantTypes = map[string]dto.MetricType{
	MetricRunning: dto.MetricType_GAUGE, MetricWaiting: dto.MetricType_GAUGE, MetricKVUsage: dto.MetricType_GAUGE,
	MetricCacheQuery + "_total": dto.MetricType_COUNTER, MetricCacheHits + "_total": dto.MetricType_COUNTER,
	MetricPreempt + "_total": dto.MetricType_COUNTER, MetricPrompt + "_total": dto.MetricType_COUNTER,
	MetricGeneration + "_total": dto.MetricType_COUNTER, MetricSuccess + "_total": dto.MetricType_COUNTER,
	MetricTTFT: dto.MetricType_HISTOGRAM, MetricE2E: dto.MetricType_HISTOGRAM,
}

// scrape GETs /metrics at the server's root, as vLLM serves it, and
// parses it strictly.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(url, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, ct)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	for name, f := range fams {
		if want, ok := wantTypes[name]; (ok && f.GetType() != want) || f.GetHelp() == "" {
			t.Errorf("family %s: type %v, help %q; want %v and a help text", name, f.GetType(), f.GetHelp(), want)
		}
	}
	return fams
}

// value is the value of name's series whose labels include label=value
// ("" for the only one), a histogram's count.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name, label, val string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no family %s", name)
	}
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, lp := range m.GetLabel() {
			labels[lp.GetName()] = lp.GetValue()
		}
		if labels["model_name"] != "sim" || labels["engine"] != "0" || (label != "" && labels[label] != val) {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("%s: no series with %s=%q", name, label, val)
	return 0
}

func histogramOf(t *testing.T, fams map[string]*dto.MetricFamily, name string) *dto.Histogram {
	t.Helper()
	f, ok := fams[name]
	if !ok || len(f.GetMetric()) != 1 {
		t.Fatalf("family %s: %v", name, f)
	}
	return f.GetMetric()[0].GetHistogram()
}

// TestMetricsTruth runs a mix of requests — answered, cut by max_tokens,
// cut by a fault, refused — through a prefix cache, and checks every
// counter and histogram /metrics serves against the truth of the
// requests that reached generation.
func TestMetricsTruth(t *testing.T) {
	cfg := fast()
	cfg.CacheBlocks = 64
	srv, url := Start(t, cfg)
	long := chatBody("system", words("s", 40), "user", "tell me")
	cut := strings.Replace(long, `"stream":true,`, `"stream":true,"max_tokens":2,`, 1)
	for _, r := range []struct{ body, fault string }{
		{long, ""}, {long, ""}, {long, ""}, {streamBody, ""}, {cut, ""}, {cut, ""},
		{long, FaultTruncated}, {long, FaultRateLimited}, {toolsBody(true, ""), ""},
	} {
		resp, err := post(t, http.DefaultClient, url, r.body, r.fault)
		if err != nil {
			t.Fatal(err)
		}
		rawBody(t, resp, 1<<20)
	}
	trs := srv.Truth()
	fams := scrape(t, url)
	want := map[string]float64{}
	var ttfts, e2es []float64
	for _, tr := range trs {
		if tr.Fault == FaultRateLimited {
			continue // refused before the engine
		}
		want["prompt"] += float64(tr.PromptTokens)
		want["generation"] += float64(tr.OutputTokens)
		want["queries"] += float64(tr.PromptTokens)
		want["hits"] += float64(tr.CachedTokens)
		reason := map[string]string{"stop": "stop", "tool_calls": "stop", "length": "length", "": "abort"}[tr.Finish]
		want[reason]++
		ttfts = append(ttfts, tr.FirstReady.Sub(tr.Received).Seconds())
		if tr.Finish != "" {
			e2es = append(e2es, tr.Last.Sub(tr.Received).Seconds())
		}
	}
	if want["hits"] == 0 || want["stop"] != 5 || want["length"] != 2 || want["abort"] != 1 {
		t.Fatalf("the mix did not happen: %v", want)
	}
	for _, c := range []struct {
		name, label, val, key string
	}{
		{MetricPrompt + "_total", "", "", "prompt"}, {MetricGeneration + "_total", "", "", "generation"},
		{MetricCacheQuery + "_total", "", "", "queries"}, {MetricCacheHits + "_total", "", "", "hits"},
		{MetricSuccess + "_total", "finished_reason", "stop", "stop"},
		{MetricSuccess + "_total", "finished_reason", "length", "length"},
		{MetricSuccess + "_total", "finished_reason", "abort", "abort"},
		{MetricPreempt + "_total", "", "", "none"}, {MetricRunning, "", "", "none"}, {MetricWaiting, "", "", "none"},
		{MetricKVUsage, "", "", "none"},
	} {
		if got := value(t, fams, c.name, c.label, c.val); got != want[c.key] {
			t.Errorf("%s{%s=%q} = %v, want %v", c.name, c.label, c.val, got, want[c.key])
		}
	}
	checkHistogram(t, histogramOf(t, fams, MetricTTFT), TTFTBuckets, ttfts)
	checkHistogram(t, histogramOf(t, fams, MetricE2E), E2EBuckets, e2es)
	m := srv.Metrics()
	if m.Success["stop"] != 5 || m.CacheHits != int(want["hits"]) || m.TTFT.Count != uint64(len(ttfts)) || m.Foreign != 0 || m.Scrapes != 1 {
		t.Errorf("Metrics() = %+v", m)
	}
}

// checkHistogram: the cumulative buckets, the count and the sum are those
// of the observations, the bounds vLLM's.
func checkHistogram(t *testing.T, h *dto.Histogram, bounds, obs []float64) {
	t.Helper()
	sum := 0.0
	for _, v := range obs {
		sum += v
	}
	if h.GetSampleCount() != uint64(len(obs)) || math.Abs(h.GetSampleSum()-sum) > 1e-9*max(1, sum) || len(h.GetBucket()) != len(bounds)+1 {
		t.Fatalf("count %d, sum %v, %d buckets; want %d, %v, %d", h.GetSampleCount(), h.GetSampleSum(), len(h.GetBucket()), len(obs), sum, len(bounds)+1)
	}
	for i, b := range h.GetBucket() {
		le, n := math.Inf(1), uint64(0)
		if i < len(bounds) {
			le = bounds[i]
		}
		for _, v := range obs {
			if v <= le {
				n++
			}
		}
		if b.GetUpperBound() != le || b.GetCumulativeCount() != n {
			t.Errorf("bucket le=%v: %d, want le=%v: %d", b.GetUpperBound(), b.GetCumulativeCount(), le, n)
		}
	}
}

// TestMetricsGauges scrapes while one request generates and two wait for
// the one slot: the gauges are the queue's, and the scrape's truth says
// the same.
func TestMetricsGauges(t *testing.T) {
	cfg := fast()
	cfg.Slots, cfg.TTFT = 1, 150*time.Millisecond
	srv, url := Start(t, cfg)
	done := make(chan struct{})
	for range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			if resp, err := post(t, http.DefaultClient, url, streamBody, ""); err == nil {
				rawBody(t, resp, 1<<20)
			}
		}()
	}
	deadline := time.Now().Add(2 * time.Second)
	for busy, queued := srv.Slots(); busy != 1 || queued != 2; busy, queued = srv.Slots() {
		if time.Now().After(deadline) {
			t.Fatalf("slots %d busy, %d queued; want 1, 2", busy, queued)
		}
		time.Sleep(time.Millisecond)
	}
	fams := scrape(t, url)
	sc := srv.Scrapes()[0]
	kv := float64(kvBlocksOf(4, cfg.OutputTokens)) / DefaultKVBlocks
	if sc.Running != 1 || sc.Waiting != 2 || sc.KVUsage != kv {
		t.Errorf("scrape truth %+v, want 1 running, 2 waiting, kv %v", sc, kv)
	}
	for name, want := range map[string]float64{MetricRunning: 1, MetricWaiting: 2, MetricKVUsage: kv} {
		if got := value(t, fams, name, "", ""); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for range 3 {
		<-done
	}
	if m := srv.Metrics(); m.Running != 0 || m.Waiting != 0 || m.KVUsage != 0 || m.Success["stop"] != 3 {
		t.Errorf("after the requests: %+v", m)
	}
}

// TestMetricsFaults: each fault makes /metrics lie as its spec says, and
// only /metrics: the truth and the requests stay as they were.
func TestMetricsFaults(t *testing.T) {
	send := func(t *testing.T, url string, n int) {
		for range n {
			resp, err := post(t, http.DefaultClient, url, streamBody, "")
			if err != nil {
				t.Fatal(err)
			}
			rawBody(t, resp, 1<<20)
		}
	}
	cases := map[string]struct {
		spec  string
		check func(t *testing.T, srv *Server, url string)
	}{
		"lie": {"metrics_lie=2", func(t *testing.T, srv *Server, url string) {
			send(t, url, 5)
			var lies []float64
			for _, tr := range srv.Truth() {
				lies = append(lies, 2*tr.FirstReady.Sub(tr.Received).Seconds())
			}
			checkHistogram(t, histogramOf(t, scrape(t, url), MetricTTFT), TTFTBuckets, lies)
			if m := srv.Metrics(); math.Abs(m.TTFT.Sum*2-sumOf(lies)) > 1e-9 {
				t.Errorf("the truth lies too: sum %v", m.TTFT.Sum)
			}
		}},
		"foreign": {"metrics_foreign=0.2", func(t *testing.T, srv *Server, url string) {
			send(t, url, 10)
			fams := scrape(t, url)
			got := value(t, fams, MetricSuccess+"_total", "finished_reason", "stop")
			if m := srv.Metrics(); got != 12 || m.Success["stop"] != 10 || m.Foreign != 2 || histogramOf(t, fams, MetricTTFT).GetSampleCount() != 12 {
				t.Errorf("request_success %v, truth %d and %d foreign; want 12, 10, 2", got, m.Success["stop"], m.Foreign)
			}
		}},
		"vanish": {"metrics_vanish=2", func(t *testing.T, srv *Server, url string) {
			send(t, url, 1)
			for i := range 4 {
				_, ok := scrape(t, url)[MetricTTFT]
				if ok != (i < 2) || srv.Scrapes()[i].Vanished == (i < 2) {
					t.Errorf("scrape %d: %s present %v", i+1, MetricTTFT, ok)
				}
			}
		}},
		"vanish a gauge": {"metrics_vanish=1@vllm:num_requests_waiting", func(t *testing.T, srv *Server, url string) {
			scrape(t, url)
			fams := scrape(t, url)
			if _, ok := fams[MetricWaiting]; ok || fams[MetricRunning] == nil || fams[MetricTTFT] == nil {
				t.Errorf("second scrape: families %v", keys(fams))
			}
		}},
		"hang": {"metrics_hang=1", func(t *testing.T, srv *Server, url string) {
			client := &http.Client{Timeout: 100 * time.Millisecond}
			start := time.Now()
			if resp, err := client.Get(strings.TrimSuffix(url, "/v1") + "/metrics"); err == nil {
				resp.Body.Close()
				t.Fatalf("a hanging /metrics answered %d", resp.StatusCode)
			}
			send(t, url, 1) // a chat request meanwhile is served as ever
			if tr := srv.Truth()[0]; time.Since(start) < 100*time.Millisecond || !srv.Scrapes()[0].Hung || tr.Finish != "stop" {
				t.Errorf("gave up after %v, scrape %+v, request %+v", time.Since(start), srv.Scrapes()[0], tr)
			}
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, err := ParseSpec("ttft=2ms,tpot=1ms,tokens=4," + tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			srv, url := Start(t, cfg)
			tc.check(t, srv, url)
		})
	}
}

// TestMetricsSeries: 100,000 series parse, cost the server no memory per
// series (it allocates far less than the body it writes), and the body
// stays under a stated size per series.
func TestMetricsSeries(t *testing.T) {
	const n = 100_000
	cfg := fast()
	cfg.MetricsSeries = n
	_, url := Start(t, cfg)
	if f := scrape(t, url)[MetricExtra]; f == nil || len(f.GetMetric()) != n || f.GetType() != dto.MetricType_GAUGE {
		t.Fatalf("%s: %d series", MetricExtra, len(f.GetMetric()))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, err := http.Get(strings.TrimSuffix(url, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	size, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d series: %d bytes, %d allocated", n, size, alloc)
	if size > 40*n || alloc > uint64(size)/10 {
		t.Errorf("%d bytes for %d series (want <= 40 a series), %d bytes allocated (want < a tenth of the body)", size, n, alloc)
	}
}

func TestPromFloat(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0.0", 1: "1.0", 0.001: "0.001", 2560: "2560.0", 0.25: "0.25", 12: "12.0",
		1234567: "1.234567e+06", 1e-05: "1e-05", math.Inf(1): "+Inf", 123456: "123456.0",
	} {
		if got := promFloat(in); got != want {
			t.Errorf("promFloat(%v) = %q, want %q", in, got, want)
		}
	}
}

func sumOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func keys(fams map[string]*dto.MetricFamily) string {
	var b bytes.Buffer
	for k := range fams {
		b.WriteString(k + " ")
	}
	return b.String()
}

// TestMetricsKVWithCache: with a prefix cache, KV usage is relative to
// its size; after Reset the counters are zero again and the cache cold.
func TestMetricsKVWithCache(t *testing.T) {
	cfg := fast()
	cfg.Slots, cfg.TTFT, cfg.CacheBlocks = 1, 150*time.Millisecond, 8
	srv, url := Start(t, cfg)
	body := chatBody("user", words("w", 40))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := post(t, http.DefaultClient, url, body, ""); err == nil {
			rawBody(t, resp, 1<<20)
		}
	}()
	deadline := time.Now().Add(2 * time.Second)
	for busy, _ := srv.Slots(); busy != 1; busy, _ = srv.Slots() {
		if time.Now().After(deadline) {
			t.Fatal("the request never started")
		}
		time.Sleep(time.Millisecond)
	}
	want := float64(kvBlocksOf(40, cfg.OutputTokens)) / 8 // 46 tokens: 3 blocks of 8
	if got := value(t, scrape(t, url), MetricKVUsage, "", ""); got != want || want != 3.0/8 {
		t.Errorf("%s = %v, want %v", MetricKVUsage, got, want)
	}
	<-done
	usageOf(t, url, body)
	if m := srv.Metrics(); m.CacheHits != 32 || m.Success["stop"] != 2 {
		t.Fatalf("before Reset: %+v", m)
	}
	srv.Reset()
	if u := usageOf(t, url, body); cachedOf(u) != 0 {
		t.Errorf("after Reset: %d cached tokens, want a cold cache", cachedOf(u))
	}
	fams := scrape(t, url)
	if got := value(t, fams, MetricSuccess+"_total", "finished_reason", "stop"); got != 1 {
		t.Errorf("after Reset: request_success %v, want 1", got)
	}
}
