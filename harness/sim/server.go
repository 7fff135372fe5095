package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Server is the simulated endpoint; it implements http.Handler for
// POST /v1/chat/completions (streaming or not) and GET /v1/models.
type Server struct {
	mu       sync.Mutex
	cfg      Config
	gen      int       // bumped by Reset so that requests begun before it are not recorded after it
	first    time.Time // arrival of the first request since New or Reset, for SlowAfter
	records  []Truth
	inflight int
	slots    slotQueue
	idle     chan struct{} // closed while inflight == 0

	cache *prefixCache // nil without Config.CacheBlocks
	// The account behind /metrics (metrics.go): requests generating and
	// the KV blocks they hold, what happened (truthAcct) and what
	// /metrics shows (shownAcct), foreign requests added, scrapes.
	running, kvBlocks    int
	truthAcct, shownAcct account
	counted, foreign     int
	scrapeCount          int
	scrapes              []Scrape
}

// New returns a server simulating cfg. It panics if cfg.Validate fails: a
// broken config is a programming error, and ParseSpec already reports it as
// an error for specs that come from users.
func New(cfg Config) *Server {
	s := &Server{idle: make(chan struct{}), truthAcct: newAccount(), shownAcct: newAccount()}
	close(s.idle)
	s.SetConfig(cfg)
	return s
}

// SetConfig changes the simulation for requests that arrive after it.
func (s *Server) SetConfig(cfg Config) {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.cfg = cfg
	if cfg.CacheBlocks == 0 {
		s.cache = nil
	} else if s.cache == nil || s.cache.limit != cfg.CacheBlocks {
		s.cache = newPrefixCache(cfg.CacheBlocks)
	}
	s.slots.limit = cfg.Slots
	s.slots.grant() // a raised limit serves waiters at once
	s.mu.Unlock()
}

// Reset forgets all records and restarts request indices at 0, so the next
// run meets the same faults and jitter as the first; the next request is
// the first again for SlowAfter. It empties the prefix cache and zeroes
// the counters and histograms of /metrics, as a restart would, but not
// its gauges, which belong to the requests still running.
func (s *Server) Reset() {
	s.mu.Lock()
	s.gen++
	s.records = nil
	s.first = time.Time{}
	if s.cache != nil {
		s.cache = newPrefixCache(s.cache.limit)
	}
	s.truthAcct, s.shownAcct = newAccount(), newAccount()
	s.counted, s.foreign, s.scrapeCount, s.scrapes = 0, 0, 0, nil
	s.mu.Unlock()
}

// InFlight is the number of requests whose handler has not returned.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inflight
}

// truthGrace bounds how long Truth waits for handlers still running: a
// client sees [DONE] a moment before the handler records Last and returns.
const truthGrace = 200 * time.Millisecond

// Truth returns a copy of all records so far, in arrival order. It first
// waits up to 200 ms for in-flight requests to finish, because a client that
// has just read the end of its stream can be ahead of the handler's
// bookkeeping; records of requests still running after that have Done false.
func (s *Server) Truth() []Truth {
	s.WaitIdle(truthGrace)
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Truth(nil), s.records...)
}

// WaitIdle waits until no request is in flight or d has passed, and says
// whether the server is idle.
func (s *Server) WaitIdle(d time.Duration) bool {
	s.mu.Lock()
	idle := s.idle
	s.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}

// begin registers a request and returns its record, the config it runs
// under and the generation it belongs to.
func (s *Server) begin(received time.Time) (Truth, Config, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight == 0 {
		s.idle = make(chan struct{})
	}
	s.inflight++
	i := len(s.records)
	tr := Truth{Index: i, ID: "chatcmpl-sim-" + strconv.Itoa(i), Received: received, SlowFactor: 1}
	if s.first.IsZero() {
		s.first = received
	}
	if s.cfg.SlowFactor != 0 && received.Sub(s.first) > s.cfg.SlowAfter {
		tr.SlowFactor = s.cfg.SlowFactor
	}
	s.records = append(s.records, tr)
	return tr, s.cfg, s.gen
}

// end records a request whose handler returns; generated says it reached
// generation, and so counts in /metrics.
func (s *Server) end(tr *Truth, gen int, generated bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tr.Done = true
	if gen == s.gen && tr.Index < len(s.records) {
		s.records[tr.Index] = *tr
		if generated {
			s.count(tr)
		}
	}
	s.inflight--
	if s.inflight == 0 {
		close(s.idle)
	}
}

// ServeHTTP routes by path suffix, so a base URL with or without /v1 works.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "use POST", "invalid_request_error", "")
			return
		}
		s.chat(w, r)
	case strings.HasSuffix(r.URL.Path, "/responses") && r.Method == http.MethodPost:
		s.serveAPI(w, r, parseResponses)
	case strings.HasSuffix(r.URL.Path, "/messages") && r.Method == http.MethodPost:
		s.serveAPI(w, r, parseMessages)
	case strings.HasSuffix(r.URL.Path, "/embeddings") && r.Method == http.MethodPost:
		s.embeddings(w, r)
	case strings.HasSuffix(r.URL.Path, "/metrics") && r.Method == http.MethodGet:
		s.serveMetrics(w, r)
	case strings.HasSuffix(r.URL.Path, "/models") && r.Method == http.MethodGet:
		s.serveModels(w)
	case r.URL.Path == "/version" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"version":"llmsla-sim"}`)
	default:
		writeError(w, http.StatusNotFound, "no route for "+r.Method+" "+r.URL.Path, "invalid_request_error", "")
	}
}

// FaultHeader, set on a request, forces that request's fault kind ("none"
// for none) regardless of Config.Faults, so a test can hit one kind exactly.
const FaultHeader = "X-Sim-Fault"

// rawParams are read apart from openai.ChatCompletionRequest, whose float32
// temperature with omitempty cannot tell 0 from absent.
type rawParams struct {
	Temperature *float64 `json:"temperature"`
	Seed        *int     `json:"seed"`
	// vLLM's extra sampling parameters of a fixed answer length.
	MinTokens int  `json:"min_tokens"`
	IgnoreEOS bool `json:"ignore_eos"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	tr, cfg, gen := s.begin(time.Now())
	var c *call
	defer func() { s.end(&tr, gen, c != nil && c.started) }()

	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	var req openai.ChatCompletionRequest
	var raw rawParams
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err == nil {
		err = json.Unmarshal(body, &raw)
	}
	if err != nil {
		tr.Status = http.StatusBadRequest
		writeError(w, tr.Status, "could not parse the JSON body: "+err.Error(), "invalid_request_error", "")
		return
	}
	tr.Model, tr.Stream = req.Model, req.Stream
	tr.MaxTokens = req.MaxCompletionTokens
	if tr.MaxTokens == 0 {
		tr.MaxTokens = req.MaxTokens
	}
	tr.Temperature, tr.Seed = raw.Temperature, raw.Seed
	tr.MinTokens, tr.IgnoreEOS = raw.MinTokens, raw.IgnoreEOS
	tr.PromptTokens = promptTokens(&req)
	tr.Fault = cfg.pickFault(tr.Index)
	if f := r.Header.Get(FaultHeader); f == "none" {
		tr.Fault = ""
	} else if f != "" {
		tr.Fault = f
	}
	if tr.Fault != "" && !isFault(tr.Fault) {
		tr.Status = http.StatusBadRequest
		writeError(w, tr.Status, "unknown "+FaultHeader+" "+tr.Fault, "invalid_request_error", "")
		return
	}

	c = newCall(s, &cfg, &tr, &req, w, r)
	c.run()
}

// serveModels lists the one model, as vLLM does: with its root when
// Config.Root names one.
func (s *Server) serveModels(w http.ResponseWriter) {
	s.mu.Lock()
	root := s.cfg.Root
	s.mu.Unlock()
	m := map[string]any{"id": "sim", "object": "model", "created": 0, "owned_by": "llmsla"}
	if root != "" {
		m["root"] = root
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []any{m}})
}
