package server

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/stats"
)

// Window makes one run's figures (stats.Server) from its readings, taken
// or read back from the file in order, of every source: the same code
// for a session's figures and for llmsla verdict's.
//
// Gauges count from the readings during the level (queue depth, running
// requests and KV usage: the level's load, not the idle server before and
// after it); memory from every reading. Counters and histograms add the
// increases of the readings after the one before the level, and are
// measured only when both that reading and the one after the level were
// taken and held the family: a counter that vanished, or a reading that
// failed there, leaves the figure not measured rather than short.
type Window struct {
	srv    *stats.Server
	src    map[string]*sourceState
	shared bool
}

// sourceState is what a window keeps of one source.
type sourceState struct {
	before, after   bool            // the readings before and after the level were taken
	base, last      map[string]bool // cumulative families of the reading before, and of the last one taken
	incr            [nFigures]float64
	ttft, e2e       stats.Buckets
	firstAt, lastAt time.Time
	during          int                    // readings during the level taken
	models          map[string]*[2]float64 // model → its largest size and VRAM read
}

// NewWindow starts the figures of one run.
func NewWindow() *Window {
	return &Window{srv: stats.NewServer(), src: map[string]*sourceState{}}
}

// Add counts one reading.
func (w *Window) Add(rd *Reading) {
	s := w.src[rd.Source]
	if s == nil {
		s = &sourceState{models: map[string]*[2]float64{}}
		w.src[rd.Source] = s
	}
	w.srv.Readings++
	w.shared = w.shared || rd.Shard != ""
	w.srv.Sent = max(w.srv.Sent, rd.Sent)
	if !rd.OK() {
		w.srv.Fail(fmt.Sprintf("%s %s: %s", rd.Source, rd.Phase, rd.Err))
		return
	}
	if rd.Sampled {
		w.srv.Note("%s: %d series in %d families, of which %d kept (the figures' families whole)", rd.Source, rd.SeriesSeen, rd.Families, len(rd.Series))
	}
	for _, c := range rd.Reset {
		w.srv.Note("%s: counter %s went back (a restart?): counted from 0", rd.Source, c)
	}
	fams := map[string]bool{}
	g := gauges{kv: math.NaN()}
	for i := range rd.Series {
		se := &rd.Series[i]
		f, ok := figureOf(rd.Source, se.Name)
		if !ok {
			continue
		}
		if se.cumulative() {
			fams[se.Name] = true
			if rd.Phase != Before {
				s.add(f, se, w.srv)
			}
			continue
		}
		g.add(f, se, s)
	}
	switch rd.Phase {
	case Before:
		s.before, s.base, s.firstAt = true, fams, rd.At
	case After:
		s.after = true
	case During:
		s.during++
		w.gauges(g)
	}
	s.last, s.lastAt = fams, rd.At
	w.memory(g)
}

// gauges is what one reading's gauges say.
type gauges struct {
	waiting, running, kv float64
	hasWaiting, hasRun   bool
	size, vram, rss      float64
	hasMem, hasRSS       bool
	cacheRate            float64
	hasRate              bool
}

func (g *gauges) add(f figure, se *Series, s *sourceState) {
	v := se.Value
	switch f {
	case fWaiting:
		g.waiting, g.hasWaiting = g.waiting+v, true
	case fRunning:
		g.running, g.hasRun = g.running+v, true
	case fKV:
		stats.Peak(&g.kv, v)
	case fCacheRate:
		g.cacheRate, g.hasRate = v, true
	case fModelSize, fModelVRAM:
		i := 0
		if f == fModelSize {
			g.size, g.hasMem = g.size+v, true
		} else {
			g.vram, g.hasMem, i = g.vram+v, true, 1
		}
		if s == nil {
			return
		}
		m := s.models[se.Labels]
		if m == nil {
			m = &[2]float64{}
			s.models[se.Labels] = m
		}
		m[i] = max(m[i], v)
	case fRSS:
		g.rss, g.hasRSS = v, true
	}
}

// gauges counts the load gauges of a reading during the level.
func (w *Window) gauges(g gauges) {
	if g.hasWaiting {
		w.srv.AddQueue(g.waiting)
	}
	if g.hasRun {
		stats.Peak(&w.srv.RunningMax, g.running)
	}
	if !math.IsNaN(g.kv) {
		if g.kv > 1 {
			w.srv.Note("KV-cache usage %g read (above 1): counted as 1", g.kv)
		}
		stats.Peak(&w.srv.KVPeak, min(g.kv, 1))
	}
	if g.hasRate {
		w.srv.CacheRate = g.cacheRate
	}
}

func (w *Window) memory(g gauges) {
	if g.hasMem {
		stats.Peak(&w.srv.ModelMem, g.size)
		stats.Peak(&w.srv.ModelVRAM, g.vram)
	}
	if g.hasRSS {
		stats.Peak(&w.srv.RSS, g.rss)
	}
}

// add counts an increase of a counter or histogram.
func (s *sourceState) add(f figure, se *Series, srv *stats.Server) {
	switch f {
	case fTTFT, fE2E:
		h := &s.ttft
		if f == fE2E {
			h = &s.e2e
		}
		if !h.Add(bucketsOf(se)) {
			srv.Note("%s: its buckets changed within the level", se.Name)
		}
	default:
		s.incr[f] += se.Value
	}
}

// bucketsOf turns a histogram series (cumulative counts) into per-bucket
// counts.
func bucketsOf(se *Series) stats.Buckets {
	b := stats.Buckets{Bounds: slices.Clone(se.Le), Counts: make([]float64, len(se.Counts))}
	prev := 0.0
	for i, c := range se.Counts {
		b.Counts[i] = max(0, c-prev)
		prev = c
	}
	return b
}

// Server is the run's figures: what was read, NaN for what was not.
func (w *Window) Server() *stats.Server {
	out := *w.srv
	out.Shared = w.shared
	if s := w.src[SourceMetrics]; s != nil {
		w.counters(&out, s)
		if s.during == 0 && (s.before || s.after) {
			out.Note("metrics: no reading during the level (shorter than server_metrics.every): its queue, running and KV figures are not measured")
		}
	}
	if s := w.src[SourceProcess]; s != nil && s.measured(ProcessCPU) {
		out.CPU, out.Wall = s.incr[fCPU], s.lastAt.Sub(s.firstAt)
	}
	if s := w.src[SourceOllama]; s != nil {
		for labels, m := range s.models {
			out.Models = append(out.Models, fmt.Sprintf("%s: size %s MB, %s MB in VRAM",
				labelValue(labels, "model"), metric.Num(m[0]/metric.MB), metric.Num(m[1]/metric.MB)))
		}
		slices.Sort(out.Models)
	}
	return &out
}

// counters sets the counter and histogram figures of the metrics source
// that were measured.
func (w *Window) counters(out *stats.Server, s *sourceState) {
	if !s.before || !s.after {
		which := "before"
		if s.before {
			which = "after"
		}
		out.Note("metrics: the reading %s the level failed: its counters' and histograms' increases are not measured", which)
		return
	}
	for _, c := range []struct {
		f  figure
		to *float64
	}{{fRequests, &out.Requests}, {fPreempt, &out.Preemptions}, {fCacheQuery, &out.CacheQueries}, {fCacheHit, &out.CacheHits}} {
		if name, ok := s.family(c.f); ok {
			*c.to = s.incr[c.f]
		} else if name != "" {
			out.Note("metrics: %s vanished during the level: its increase is not measured", name)
		}
	}
	for _, h := range []struct {
		f    figure
		from stats.Buckets
		to   *stats.Buckets
	}{{fTTFT, s.ttft, &out.TTFT}, {fE2E, s.e2e, &out.E2E}} {
		if name, ok := s.family(h.f); ok {
			*h.to = h.from
		} else if name != "" {
			out.Note("metrics: %s vanished during the level: its percentiles are not measured", name)
		}
	}
}

// family returns the family giving f in the reading before the level, and
// whether the reading after still held it.
func (s *sourceState) family(f figure) (string, bool) {
	for name := range s.base {
		if g, _ := figureOf(SourceMetrics, name); g == f {
			return name, s.last[name]
		}
	}
	return "", false
}

// measured reports whether the family was in the readings before and
// after the level.
func (s *sourceState) measured(name string) bool {
	return s.before && s.after && s.base[name] && s.last[name]
}

// labelValue is the value of key in a label set as Series writes it
// (key="value", quoted as Go quotes), "" without it.
func labelValue(labels, key string) string {
	for rest := labels; rest != ""; {
		k, after, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		v, n, err := unquotePrefix(after)
		if err != nil {
			break
		}
		if k == key {
			return v
		}
		rest = strings.TrimPrefix(after[n:], ",")
	}
	return ""
}

// unquotePrefix unquotes the Go-quoted string s starts with, and says how
// long it was.
func unquotePrefix(s string) (string, int, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", 0, err
	}
	v, err := strconv.Unquote(q)
	return v, len(q), err
}

// The quantities Gauges returns.
const (
	GaugeQueue   = "queue"   // requests waiting
	GaugeRunning = "running" // requests in the batch
	GaugeKV      = "kv"      // KV-cache usage, a fraction
	GaugeModel   = "model"   // the loaded models' memory, bytes (Ollama)
	GaugeRSS     = "rss"     // the process tree's resident memory, bytes
)

// Gauges is what one reading says of the load and memory, each quantity
// it gave by name (GaugeQueue, …), read as a window reads them: for a
// plot over time.
func (rd *Reading) Gauges() map[string]float64 {
	g := gauges{kv: math.NaN()}
	for i := range rd.Series {
		se := &rd.Series[i]
		if f, ok := figureOf(rd.Source, se.Name); ok && !se.cumulative() {
			g.add(f, se, nil)
		}
	}
	out := map[string]float64{}
	for _, q := range []struct {
		name string
		v    float64
		ok   bool
	}{{GaugeQueue, g.waiting, g.hasWaiting}, {GaugeRunning, g.running, g.hasRun}, {GaugeKV, min(g.kv, 1), !math.IsNaN(g.kv)},
		{GaugeModel, g.size, g.hasMem}, {GaugeRSS, g.rss, g.hasRSS}} {
		if q.ok {
			out[q.name] = q.v
		}
	}
	return out
}
