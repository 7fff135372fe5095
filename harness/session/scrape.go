package session

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

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// The server's side of each level (package server): its /metrics, an
// Ollama server's /api/ps and its process on this machine, read before,
// during and after the level's measured requests, written to the server
// file and kept per run for the verdict (ServerOf).

// probeTimeout bounds the one probe of an endpoint's /metrics.
const probeTimeout = 2 * time.Second

// maxWindows bounds the runs whose figures the session keeps in memory.
const maxWindows = 4096

// servers is the session's state of the endpoints' servers.
type servers struct {
	mu      sync.Mutex
	of      map[string]*endpointServer // endpoint → its sources, found once
	file    *server.File
	windows map[string]*stats.Server // run id → its figures
	order   []string
}

// endpointServer is how one endpoint's server is read: its sources, and
// what was found about the ones it does not have.
type endpointServer struct {
	once    sync.Once
	sources []server.Source
	every   time.Duration
	notes   []string
}

// watchServer returns the watch of a level's server, nil when there is
// nothing to read of it, or for go test's probe (warm-up).
func (s *Session) watchServer(c Cell, probe bool) *server.Watch {
	if probe {
		return nil
	}
	es := s.serverOf(c.Endpoint)
	if len(es.sources) == 0 {
		return nil
	}
	shard := ""
	if s.run.Shard.On() {
		shard = s.run.Shard.String()
	}
	l := server.Labels{Scenario: c.Scenario, Endpoint: c.Endpoint.Name, Level: c.Level.Label(), Shard: shard}
	return server.NewWatch(es.sources, es.every, l, func(rd *server.Reading) {
		if s.servers.file != nil {
			s.servers.file.Write(rd)
		}
	})
}

// simSettle is how long the readings before and after a level wait for
// a simulator's handlers: it counts a request when its handler returns, a
// moment after the client read the end, and its Truth waits as long.
const simSettle = 200 * time.Millisecond

// beginWatch is the hook that starts a level's readings as its measured
// requests start; on a simulator once the warm-up's handlers have
// returned, so that its counters hold none of them.
func (s *Session) beginWatch(c Cell, w *server.Watch) func(run string) {
	return func(run string) {
		if srv := s.sims[c.Endpoint.Name]; srv != nil {
			srv.WaitIdle(simSettle)
		}
		w.Begin(run)
	}
}

// endWatch takes the reading after the level and keeps the run's figures
// (on a simulator once its handlers have returned).
func (s *Session) endWatch(c Cell, w *server.Watch, samples []sample.Sample) {
	if srv := s.sims[c.Endpoint.Name]; srv != nil {
		srv.WaitIdle(simSettle)
	}
	sent, run := 0, ""
	for i := range samples {
		if samples[i].Measured() {
			sent, run = sent+1, samples[i].Run
		}
	}
	figs := w.End(sent)
	if figs == nil || run == "" {
		return
	}
	sv := &s.servers
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if len(sv.order) == maxWindows {
		delete(sv.windows, sv.order[0])
		sv.order = sv.order[1:]
	}
	sv.windows[run] = figs
	sv.order = append(sv.order, run)
}

// close closes the sources' idle connections and the server file.
func (sv *servers) close() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	for _, es := range sv.of {
		for _, src := range es.sources {
			if c, ok := src.(interface{ Close() }); ok {
				c.Close()
			}
		}
	}
	if sv.file != nil {
		sv.file.Close()
	}
}

// ServerOf is the server's account of the runs samples belong to, their
// figures merged; nil when none was read.
func (s *Session) ServerOf(samples []sample.Sample) *stats.Server {
	sv := &s.servers
	sv.mu.Lock()
	defer sv.mu.Unlock()
	var out *stats.Server
	seen := map[string]bool{}
	for i := range samples {
		run := samples[i].Run
		figs, ok := sv.windows[run]
		if !ok || seen[run] {
			continue
		}
		seen[run] = true
		if out == nil {
			out = &stats.Server{}
		}
		out.Merge(figs)
	}
	return out
}

// ServerSources says how the endpoint's server is read, and why not
// where it is not: for the log of a test.
func (s *Session) ServerSources(ep stream.Endpoint) []string {
	es := s.serverOf(ep)
	out := make([]string, 0, len(es.sources)+len(es.notes))
	for _, src := range es.sources {
		switch src := src.(type) {
		case *server.Metrics:
			out = append(out, fmt.Sprintf("server metrics: %s every %s", stream.RedactURL(src.URL()), es.every))
		case *server.Process:
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
func (s *Session) serverOf(ep stream.Endpoint) *endpointServer {
	sv := &s.servers
	sv.mu.Lock()
	es := sv.of[ep.Name]
	if es == nil {
		es = &endpointServer{}
		sv.of[ep.Name] = es
	}
	sv.mu.Unlock()
	es.once.Do(func() {
		conf := s.cfg.Servers[ep.Name]
		es.every = conf.Every
		if es.every == 0 {
			es.every = server.DefaultEvery
		}
		es.addMetrics(ep, conf)
		if ep.Kind == "ollama" {
			es.sources = append(es.sources, ollamaSource(ep))
		}
		es.addProcess(ep, conf)
	})
	return es
}

// addMetrics adds the endpoint's /metrics: the configured one, or the
// base URL's when it answers as one.
func (es *endpointServer) addMetrics(ep stream.Endpoint, conf config.Server) {
	if conf.Off {
		es.notes = append(es.notes, "server metrics: off")
		return
	}
	u, configured := conf.URL, conf.URL != ""
	if !configured {
		var err error
		if u, err = server.MetricsURL(ep.BaseURL); err != nil {
			return
		}
	}
	m := server.NewMetrics(u, scrapeHeader(ep, u))
	if !configured {
		if err := server.Probe(context.Background(), m, probeTimeout); err != nil {
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
func (es *endpointServer) addProcess(ep stream.Endpoint, conf config.Server) {
	if conf.PID > 0 {
		es.sources = append(es.sources, server.NewProcess(conf.PID))
		return
	}
	if ep.Simulated {
		return
	}
	port, ok := loopbackPort(ep.BaseURL)
	if !ok {
		return // another machine's server: no process figures
	}
	pid, err := server.FindListener(port)
	if err != nil {
		es.notes = append(es.notes, fmt.Sprintf("server process: not found (%v): no memory or CPU figures (server_pid: names it)", err))
		return
	}
	es.sources = append(es.sources, server.NewProcess(pid))
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
func ollamaSource(ep stream.Endpoint) server.Source {
	host := strings.TrimSuffix(strings.TrimSuffix(ep.BaseURL, "/"), "/v1")
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConns: 1, IdleConnTimeout: time.Minute}}
	return server.SourceFunc(server.SourceOllama, func(ctx context.Context, rd *server.Reading) error {
		models, err := ollama.PS(ctx, client, host)
		if err != nil {
			return err
		}
		for _, m := range models {
			labels := fmt.Sprintf("model=%q", m.Name)
			rd.Series = append(rd.Series,
				server.Series{Name: server.OllamaSize, Type: server.Gauge, Labels: labels, Value: float64(m.Size)},
				server.Series{Name: server.OllamaVRAM, Type: server.Gauge, Labels: labels, Value: float64(m.SizeVRAM)})
		}
		return nil
	})
}
