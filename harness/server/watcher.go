package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// Config says how an endpoint's server is read over each level
// (METRICS.md, server metrics): server_metrics, server_pid and
// exclusive, endpoint keys of the SLA file. The zero value is the
// default: the base URL's /metrics probed once and scraped every second
// if it answers in the Prometheus text format, an Ollama endpoint's
// /api/ps read, the process found by its port on a loopback base URL.
type Config struct {
	// URL is the /metrics to scrape ("": the base URL's, probed); Off
	// scrapes none (server_metrics: off).
	URL string
	Off bool
	// Every is the interval of the readings (0: every second).
	Every time.Duration
	// PID names the server's process on this machine (0: found by the
	// base URL's port when it is on loopback).
	PID int
	// Exclusive says the server serves this run alone: foreign load fails
	// the level (foreign_max: 0 unless the scenario sets it) instead of
	// warning.
	Exclusive bool
}

// Watcher is the observer that reads each endpoint's server over each
// measured level — its /metrics, an Ollama server's /api/ps, its process
// on this machine — before, during and after the level's measured
// requests, writes the readings to the server file, and keeps each run's
// figures for the verdict (Of).
type Watcher struct {
	observe.Nop
	endpoints map[string]stream.Endpoint
	configs   map[string]Config
	file      *File

	mu      sync.Mutex
	of      map[string]*endpointServer // endpoint → its sources, found once
	levels  map[*observe.Level][]armWatch
	windows map[string]*stats.Server // run id/endpoint → its figures
	order   []string
}

// probeTimeout bounds the one probe of an endpoint's /metrics.
const probeTimeout = 2 * time.Second

// maxWindows bounds the runs whose figures the watcher keeps in memory.
const maxWindows = 4096

// endpointServer is how one endpoint's server is read: its sources, and
// what was found about the ones it does not have.
type endpointServer struct {
	once    sync.Once
	sources []Source
	every   time.Duration
	notes   []string
}

// NewWatcher watches the servers of endpoints as configs say (by
// endpoint name), writing the readings to file (nil: none).
func NewWatcher(endpoints []stream.Endpoint, configs map[string]Config, file *File) *Watcher {
	w := &Watcher{endpoints: map[string]stream.Endpoint{}, configs: configs, file: file,
		of: map[string]*endpointServer{}, levels: map[*observe.Level][]armWatch{}, windows: map[string]*stats.Server{}}
	for _, ep := range endpoints {
		w.endpoints[ep.Name] = ep
	}
	return w
}

// armWatch is the readings of one endpoint's server over a level.
type armWatch struct {
	endpoint string
	w        *Watch
}

// LevelStart prepares the readings of a measured level (of each
// endpoint of an A/B level) whose server has something to read.
func (w *Watcher) LevelStart(_ context.Context, lv *observe.Level) {
	if lv.Probe {
		return // go test's probe: warm-up
	}
	names := lv.Arms
	if names == nil {
		names = []string{lv.Endpoint}
	}
	var watches []armWatch
	for _, name := range names {
		ep, ok := w.endpoints[name]
		if !ok {
			continue
		}
		es := w.serverOf(ep)
		if len(es.sources) == 0 {
			continue
		}
		l := Labels{Scenario: lv.Scenario, Endpoint: name, Level: lv.Label, Shard: lv.Shard}
		watches = append(watches, armWatch{name, NewWatch(es.sources, es.every, l, func(rd *Reading) {
			if w.file != nil {
				w.file.Write(rd)
			}
		})})
	}
	if len(watches) > 0 {
		w.mu.Lock()
		w.levels[lv] = watches
		w.mu.Unlock()
	}
}

func (w *Watcher) watches(lv *observe.Level) []armWatch {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.levels[lv]
}

// Measuring takes the reading before the measured requests, once the
// server has finished with the warm-up (a simulator counts a request when
// its handler returns).
func (w *Watcher) Measuring(lv *observe.Level) {
	watches := w.watches(lv)
	if len(watches) == 0 {
		return
	}
	if lv.Settle != nil {
		lv.Settle()
	}
	for _, a := range watches {
		a.w.Begin(lv.Run)
	}
}

// LevelEnd takes the reading after the level and keeps the run's figures,
// per endpoint.
func (w *Watcher) LevelEnd(_ context.Context, lv *observe.Level, samples []sample.Sample) {
	watches := w.watches(lv)
	if len(watches) == 0 {
		return
	}
	w.mu.Lock()
	delete(w.levels, lv)
	w.mu.Unlock()
	if lv.Settle != nil {
		lv.Settle()
	}
	for _, a := range watches {
		sent, run := 0, ""
		for i := range samples {
			if samples[i].Measured() && (lv.Arms == nil || samples[i].Endpoint == a.endpoint) {
				sent, run = sent+1, samples[i].Run
			}
		}
		if figs := a.w.End(sent); figs != nil && run != "" {
			w.keep(run+"/"+a.endpoint, figs)
		}
	}
}

// keep keeps a run's figures, the oldest dropped past maxWindows.
func (w *Watcher) keep(key string, figs *stats.Server) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.order) == maxWindows {
		delete(w.windows, w.order[0])
		w.order = w.order[1:]
	}
	w.windows[key] = figs
	w.order = append(w.order, key)
}

// Close closes the sources' idle connections and the server file.
func (w *Watcher) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, es := range w.of {
		for _, src := range es.sources {
			if c, ok := src.(interface{ Close() }); ok {
				c.Close()
			}
		}
	}
	if w.file != nil {
		return w.file.Close()
	}
	return nil
}

// Of is the server's account of the runs samples belong to, their
// figures merged; nil when none was read.
func (w *Watcher) Of(samples []sample.Sample) *stats.Server {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out *stats.Server
	seen := map[string]bool{}
	for i := range samples {
		key := samples[i].Run + "/" + samples[i].Endpoint
		figs, ok := w.windows[key]
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		if out == nil {
			out = &stats.Server{}
		}
		out.Merge(figs)
	}
	return out
}

// Sources says how the endpoint's server is read, and why not where it
// is not: for the log of a test.
func (w *Watcher) Sources(ep stream.Endpoint) []string {
	es := w.serverOf(ep)
	out := make([]string, 0, len(es.sources)+len(es.notes))
	for _, src := range es.sources {
		switch src := src.(type) {
		case *Metrics:
			out = append(out, fmt.Sprintf("server metrics: %s every %s", stream.RedactURL(src.URL()), es.every))
		case *Process:
			out = append(out, fmt.Sprintf("server process: pid %d (and its children)", src.PID()))
		default:
			out = append(out, "server: "+src.Name())
		}
	}
	return append(out, es.notes...)
}

// serverOf finds the endpoint's sources once: the configured /metrics,
// else its base URL's if it answers the probe; /api/ps on an Ollama
// endpoint; the process named or found by the port.
func (w *Watcher) serverOf(ep stream.Endpoint) *endpointServer {
	w.mu.Lock()
	es := w.of[ep.Name]
	if es == nil {
		es = &endpointServer{}
		w.of[ep.Name] = es
	}
	conf := w.configs[ep.Name]
	w.mu.Unlock()
	es.once.Do(func() {
		es.every = conf.Every
		if es.every == 0 {
			es.every = DefaultEvery
		}
		es.addMetrics(ep, conf)
		if ep.Kind == stream.KindOllama {
			es.sources = append(es.sources, ollamaSource(ep))
		}
		es.addProcess(ep, conf)
	})
	return es
}

// addMetrics adds the endpoint's /metrics: the configured one, or the
// base URL's when it answers as one.
func (es *endpointServer) addMetrics(ep stream.Endpoint, conf Config) {
	if conf.Off {
		es.notes = append(es.notes, "server metrics: off")
		return
	}
	u, configured := conf.URL, conf.URL != ""
	if !configured {
		var err error
		if u, err = MetricsURL(ep.BaseURL); err != nil {
			return
		}
	}
	m := NewMetrics(u, scrapeHeader(ep, u))
	if !configured {
		if err := Probe(context.Background(), m, probeTimeout); err != nil {
			es.notes = append(es.notes, fmt.Sprintf("server metrics: none at %s (%v): not scraped (server_metrics: {url: …} names one)", stream.RedactURL(u), err))
			m.Close()
			return
		}
	}
	es.sources = append(es.sources, m)
}

// scrapeHeader is what a scrape of u sends: the endpoint's headers and
// key when u is on the endpoint's host, nothing elsewhere (another host
// must not get the endpoint's key).
func scrapeHeader(ep stream.Endpoint, u string) http.Header {
	h := http.Header{}
	base, err1 := url.Parse(ep.BaseURL)
	target, err2 := url.Parse(u)
	if err1 != nil || err2 != nil || base.Host != target.Host || base.Scheme != target.Scheme {
		return h
	}
	for k, v := range ep.Headers {
		h.Set(k, v)
	}
	if ep.APIKey != "" {
		h.Set("Authorization", "Bearer "+ep.APIKey)
	}
	return h
}

// addProcess adds the server's process: server_pid's, else the one
// listening on a loopback base URL's port. The simulator runs in this
// process, which is not a server's.
func (es *endpointServer) addProcess(ep stream.Endpoint, conf Config) {
	if conf.PID > 0 {
		es.sources = append(es.sources, NewProcess(conf.PID))
		return
	}
	if ep.Simulated {
		return
	}
	port, ok := loopbackPort(ep.BaseURL)
	if !ok {
		return // another machine's server: no process figures
	}
	pid, err := FindListener(port)
	if err != nil {
		es.notes = append(es.notes, fmt.Sprintf("server process: not found (%v): no memory or CPU figures (server_pid: names it)", err))
		return
	}
	es.sources = append(es.sources, NewProcess(pid))
}

// loopbackPort is the port of a base URL on this machine's loopback.
func loopbackPort(baseURL string) (int, bool) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return 0, false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); !(host == "localhost" || ip != nil && ip.IsLoopback()) {
		return 0, false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, err := strconv.Atoi(port)
	return p, err == nil
}

// ollamaSource reads an Ollama server's /api/ps on a connection of its
// own: each loaded model's size and size_vram, as gauges.
func ollamaSource(ep stream.Endpoint) Source {
	host := strings.TrimSuffix(strings.TrimSuffix(ep.BaseURL, "/"), "/v1")
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConns: 1, IdleConnTimeout: time.Minute}}
	return SourceFunc(SourceOllama, func(ctx context.Context, rd *Reading) error {
		models, err := ollama.PS(ctx, client, host)
		if err != nil {
			return err
		}
		for _, m := range models {
			labels := fmt.Sprintf("model=%q", m.Name)
			rd.Series = append(rd.Series,
				Series{Name: OllamaSize, Type: Gauge, Labels: labels, Value: float64(m.Size)},
				Series{Name: OllamaVRAM, Type: Gauge, Labels: labels, Value: float64(m.SizeVRAM)})
		}
		return nil
	})
}
