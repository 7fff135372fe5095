package sim

import (
	"math"
	"sort"
	"time"
)

// The server's own account of its requests, served at GET /metrics in
// vLLM's Prometheus names and types (metricsout.go), from the same truth
// as Truth: a request is counted when its handler returns, if it started
// generating (status faults never reach the engine). Counters and
// histograms are fixed-size, so the account's memory does not grow with
// the run; Reset zeroes it as a server restart does.

// The metric families /metrics serves, vLLM's (vllm/v1/metrics/loggers.py).
const (
	MetricRunning    = "vllm:num_requests_running"
	MetricWaiting    = "vllm:num_requests_waiting"
	MetricKVUsage    = "vllm:kv_cache_usage_perc"
	MetricCacheQuery = "vllm:prefix_cache_queries"
	MetricCacheHits  = "vllm:prefix_cache_hits"
	MetricPreempt    = "vllm:num_preemptions"
	MetricPrompt     = "vllm:prompt_tokens"
	MetricGeneration = "vllm:generation_tokens"
	MetricSuccess    = "vllm:request_success"
	MetricTTFT       = "vllm:time_to_first_token_seconds"
	MetricE2E        = "vllm:e2e_request_latency_seconds"
	// MetricExtra is the simulator's own gauge family for
	// Config.MetricsSeries, one series per value of its "series" label.
	MetricExtra = "sim_extra_series"
)

// MetricFamilies lists the families in the order /metrics writes them.
var MetricFamilies = []string{
	MetricRunning, MetricWaiting, MetricKVUsage, MetricCacheQuery, MetricCacheHits, MetricPreempt,
	MetricPrompt, MetricGeneration, MetricSuccess, MetricTTFT, MetricE2E, MetricExtra,
}

// vLLM's bucket bounds, in seconds.
var (
	TTFTBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	E2EBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
		40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
)

// FinishedReasons are vLLM's finished_reason labels of request_success:
// stop (tool calls too: the engine stopped), length, and abort (a stream
// cut by a fault or by the client).
var FinishedReasons = []string{"stop", "length", "abort"}

// DefaultKVBlocks is the KV capacity, in blocks of CacheBlock tokens,
// that kv_cache_usage_perc is relative to when there is no prefix cache;
// with one, its size is.
const DefaultKVBlocks = 4096

// Histogram is a Prometheus histogram's state.
type Histogram struct {
	Bounds []float64 // upper bounds of the buckets, +Inf left out
	Counts []uint64  // per bucket, not cumulative: len(Bounds)+1, the last one above every bound
	Sum    float64
	Count  uint64
}

func newHistogram(bounds []float64) Histogram {
	return Histogram{Bounds: bounds, Counts: make([]uint64, len(bounds)+1)}
}

// observe counts v in the first bucket whose bound is >= v, as le says.
func (h *Histogram) observe(v float64) {
	h.Counts[sort.SearchFloat64s(h.Bounds, v)]++
	h.Sum += v
	h.Count++
}

func (h Histogram) clone() Histogram {
	h.Counts = append([]uint64(nil), h.Counts...)
	return h
}

// Metrics is the simulator's account since New or Reset: what /metrics
// says when no fault makes it lie. The gauges are as of the call.
type Metrics struct {
	Running int     // requests generating (holding a slot, with Slots)
	Waiting int     // requests queued for a slot
	KVUsage float64 // KV blocks held by running requests / the KV capacity, at most 1
	// Success counts requests by FinishedReasons.
	Success          map[string]int
	PromptTokens     int // Truth.PromptTokens summed
	GenerationTokens int // Truth.OutputTokens summed
	CacheQueries     int // prompt tokens looked up in the prefix cache
	CacheHits        int // of them, found (Truth.CachedTokens summed)
	Preemptions      int // always 0: the simulator never preempts
	TTFT             Histogram
	E2E              Histogram
	// Foreign counts the requests /metrics adds that no client sent
	// (Config.MetricsForeign); none of the figures above has them.
	Foreign int
	Scrapes int // GET /metrics served, hung ones included
}

// account is the counting part of Metrics, kept twice: the truth, and
// what /metrics shows (TTFTs times MetricsLie, foreign requests added).
type account struct {
	success                 [3]int
	prompt, generation      int
	cacheQueries, cacheHits int
	ttft, e2e               Histogram
}

func newAccount() account {
	return account{ttft: newHistogram(TTFTBuckets), e2e: newHistogram(E2EBuckets)}
}

// add counts one request; lie multiplies its TTFT.
func (a *account) add(tr *Truth, lie float64) {
	a.prompt += tr.PromptTokens
	a.generation += tr.OutputTokens
	if tr.Cache {
		a.cacheQueries += tr.PromptTokens
		a.cacheHits += tr.CachedTokens
	}
	if !tr.FirstReady.IsZero() {
		a.ttft.observe(tr.FirstReady.Sub(tr.Received).Seconds() * lie)
	}
	switch tr.Finish {
	case "stop", "tool_calls":
		a.success[0]++
	case "length":
		a.success[1]++
	default:
		a.success[2]++
	}
	if tr.Finish != "" {
		a.e2e.observe(tr.Last.Sub(tr.Received).Seconds())
	}
}

// count adds a finished request to both accounts, under s.mu.
func (s *Server) count(tr *Truth) {
	s.truthAcct.add(tr, 1)
	lie := s.cfg.MetricsLie
	if lie == 0 {
		lie = 1
	}
	s.shownAcct.add(tr, lie)
	// Foreign requests accrue as a share of the real ones, so the share
	// is exact at every scrape to within one request.
	s.counted++
	for s.foreign < int(math.Floor(float64(s.counted)*s.cfg.MetricsForeign+1e-9)) {
		s.foreign++
		s.shownAcct.add(tr, lie)
	}
}

// generating counts a request among the running ones (on) or takes it
// out, with the KV blocks its prompt and planned answer hold.
func (s *Server) generating(blocks int, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.running++
		s.kvBlocks += blocks
	} else {
		s.running--
		s.kvBlocks -= blocks
	}
}

// kvUsage is the KV usage gauge, under s.mu.
func (s *Server) kvUsage() float64 {
	capacity := DefaultKVBlocks
	if s.cache != nil {
		capacity = s.cache.limit
	}
	return min(1, float64(s.kvBlocks)/float64(capacity))
}

// Metrics returns the simulator's account now.
func (s *Server) Metrics() Metrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.truthAcct
	m := Metrics{
		Running: s.running, Waiting: len(s.slots.queue), KVUsage: s.kvUsage(),
		Success:      map[string]int{},
		PromptTokens: a.prompt, GenerationTokens: a.generation,
		CacheQueries: a.cacheQueries, CacheHits: a.cacheHits,
		TTFT: a.ttft.clone(), E2E: a.e2e.clone(),
		Foreign: s.foreign, Scrapes: s.scrapeCount,
	}
	for i, r := range FinishedReasons {
		m.Success[r] = a.success[i]
	}
	return m
}

// Scrape is what one GET /metrics was served: the gauges it showed, when,
// and the faults it met.
type Scrape struct {
	At       time.Time // when its values were taken
	Running  int
	Waiting  int
	KVUsage  float64
	Hung     bool // it sent nothing (Config.MetricsHang)
	Vanished bool // Config.MetricsVanishFamily was left out
}

// maxScrapes bounds the scrapes Scrapes keeps, the latest ones.
const maxScrapes = 4096

// Scrapes returns the latest scrapes (at most 4096), oldest first.
func (s *Server) Scrapes() []Scrape {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Scrape(nil), s.scrapes...)
}

func (s *Server) keepScrape(sc Scrape) {
	if len(s.scrapes) == maxScrapes {
		s.scrapes = append(s.scrapes[:0], s.scrapes[maxScrapes/2:]...)
	}
	s.scrapes = append(s.scrapes, sc)
}

// kvBlocksOf is the KV blocks a request holds while it generates: its
// prompt and its planned answer, in blocks of CacheBlock, rounded up.
func kvBlocksOf(promptTokens, outputTokens int) int {
	return (promptTokens + outputTokens + CacheBlock - 1) / CacheBlock
}
