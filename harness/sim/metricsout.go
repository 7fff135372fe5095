package sim

import (
	"bufio"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GET /metrics: the Prometheus text format (0.0.4) as vLLM's
// prometheus_client writes it — HELP and TYPE lines, a counter's family
// named with its _total, labels sorted, floats as Python prints them — so
// that a scraper tested here reads a real vLLM the same way. It is written
// as it goes through one bounded buffer, so a scrape of
// Config.MetricsSeries series costs no memory per series.

// metricLabels are the labels of every vLLM series here, sorted.
const metricLabels = `engine="0",model_name="sim"`

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.scrapeCount++
	n, cfg := s.scrapeCount, s.cfg
	sc := Scrape{At: time.Now(), Running: s.running, Waiting: len(s.slots.queue), KVUsage: s.kvUsage()}
	sc.Hung = cfg.MetricsHang > 0 && draw(cfg.Seed, n, streamMetricsHang).Float64() < cfg.MetricsHang
	sc.Vanished = cfg.MetricsVanish > 0 && n > cfg.MetricsVanish
	a := s.shownAcct
	a.ttft, a.e2e = a.ttft.clone(), a.e2e.clone()
	s.keepScrape(sc)
	s.mu.Unlock()
	if sc.Hung {
		// Nothing at all, not even headers, until the scraper gives up.
		t := time.NewTimer(holdStall)
		defer t.Stop()
		select {
		case <-r.Context().Done():
		case <-t.C:
		}
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	e := expo{w: bufio.NewWriterSize(w, 32<<10)}
	if sc.Vanished {
		e.skip = cfg.vanishFamily()
	}
	e.write(a, sc, cfg.MetricsSeries)
	e.w.Flush()
}

// expo writes families, leaving out the one named skip.
type expo struct {
	w    *bufio.Writer
	skip string
	on   bool // the current family is written
}

func (e *expo) write(a account, sc Scrape, series int) {
	e.gauge(MetricRunning, "Number of requests in model execution batches.", float64(sc.Running))
	e.gauge(MetricWaiting, "Number of requests waiting to be processed.", float64(sc.Waiting))
	e.gauge(MetricKVUsage, "KV-cache usage. 1 means 100 percent usage.", sc.KVUsage)
	e.counter(MetricCacheQuery, "Prefix cache queries, in terms of number of queried tokens.", a.cacheQueries)
	e.counter(MetricCacheHits, "Prefix cache hits, in terms of number of cached tokens.", a.cacheHits)
	e.counter(MetricPreempt, "Cumulative number of preemption from the engine.", 0)
	e.counter(MetricPrompt, "Number of prefill tokens processed.", a.prompt)
	e.counter(MetricGeneration, "Number of generation tokens processed.", a.generation)
	if e.family(MetricSuccess+"_total", "counter", "Count of successfully processed requests.") {
		for i, reason := range FinishedReasons {
			e.sample(MetricSuccess+"_total", `engine="0",finished_reason="`+reason+`",model_name="sim"`, float64(a.success[i]))
		}
	}
	e.histogram(MetricTTFT, "Histogram of time to first token in seconds.", a.ttft)
	e.histogram(MetricE2E, "Histogram of e2e request latency in seconds.", a.e2e)
	if series > 0 && e.family(MetricExtra, "gauge", "Series the simulator adds to test scrapers' bounds.") {
		// One reused line, so that a scrape allocates nothing per series.
		line := make([]byte, 0, 64)
		for i := range series {
			line = append(line[:0], MetricExtra+`{series="`...)
			line = strconv.AppendInt(line, int64(i), 10)
			e.w.Write(append(line, "\"} 1.0\n"...))
		}
	}
}

// family writes the HELP and TYPE lines and says whether to write the
// samples: not for the family left out.
func (e *expo) family(name, typ, help string) bool {
	e.on = strings.TrimSuffix(name, "_total") != e.skip
	if e.on {
		e.w.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
	}
	return e.on
}

func (e *expo) sample(name, labels string, v float64) {
	if !e.on {
		return
	}
	for _, part := range [...]string{name, "{", labels, "} ", promFloat(v), "\n"} {
		e.w.WriteString(part)
	}
}

func (e *expo) gauge(name, help string, v float64) {
	if e.family(name, "gauge", help) {
		e.sample(name, metricLabels, v)
	}
}

func (e *expo) counter(name, help string, v int) {
	if e.family(name+"_total", "counter", help) {
		e.sample(name+"_total", metricLabels, float64(v))
	}
}

func (e *expo) histogram(name, help string, h Histogram) {
	if !e.family(name, "histogram", help) {
		return
	}
	var cum uint64
	for i, c := range h.Counts {
		cum += c
		le := math.Inf(1)
		if i < len(h.Bounds) {
			le = h.Bounds[i]
		}
		e.sample(name+"_bucket", `engine="0",le="`+promFloat(le)+`",model_name="sim"`, float64(cum))
	}
	e.sample(name+"_count", metricLabels, float64(h.Count))
	e.sample(name+"_sum", metricLabels, h.Sum)
}

// promFloat writes a float as prometheus_client's floatToGoString does:
// Python's repr ("1.0", "0.001", "1e-05"), switched to an exponent as Go
// does above six digits before the point ("1.234567e+06").
func promFloat(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "+Inf"
	case math.IsInf(d, -1):
		return "-Inf"
	case math.IsNaN(d):
		return "NaN"
	}
	if a := math.Abs(d); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(d, 'e', -1, 64)
	}
	s := strconv.FormatFloat(d, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	if dot := strings.IndexByte(s, '.'); d > 0 && dot > 6 {
		mantissa := strings.TrimRight(s[:1]+"."+s[1:dot]+s[dot+1:], "0.")
		return mantissa + "e+0" + strconv.Itoa(dot-1)
	}
	return s
}

func (c Config) vanishFamily() string {
	if c.MetricsVanishFamily == "" {
		return MetricTTFT
	}
	return c.MetricsVanishFamily
}
