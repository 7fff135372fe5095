package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Server is a server's own account of one level, from the readings of its
// metrics taken over the level's measured requests (package server makes
// it from a scrape window; runs of a level pooled are merged): its queue,
// batch, KV cache, its counters' increases, its latency histograms, the
// memory of its models and of its process. A figure the readings did not
// give is NaN (not measured), never 0.
type Server struct {
	// Readings counts the readings taken, every source together; Failed
	// of them failed (a timeout, a status, a body that does not parse),
	// and Errors holds the first few distinct failures. A failed reading
	// is counted and shown, never an error of the run.
	Readings, Failed int
	Errors           []string

	// Queue holds the queue depths read (requests waiting), at most
	// MaxQueueValues of them (every other one dropped when full).
	Queue []float64
	// QueueMax, RunningMax and KVPeak are the most requests waiting and
	// running, and the highest KV-cache usage (a fraction), read.
	QueueMax, RunningMax, KVPeak float64

	// Requests, Preemptions, CacheQueries and CacheHits are the increases
	// of the server's counters over the level (requests finished, prefix
	// cache tokens looked up and found). NaN when the reading before or
	// the one after the level failed, or the counter was missing from it.
	Requests, Preemptions, CacheQueries, CacheHits float64
	// CacheRate is a prefix-cache hit rate the server only gives as a
	// gauge (SGLang's cache_hit_rate): its last reading; NaN otherwise.
	CacheRate float64
	// Sent is the measured requests the client sent over the level.
	Sent int
	// ClientError is the client's own error on every percentile over the
	// level, in ms (its health: twice its timer lateness p99), which the
	// agreement of its TTFT with the server's allows either side; 0 when
	// its health was not measured. Whoever has the client's health sets it
	// (WithClient). ClientErrorMax is the same from its worst wake (twice
	// its timer lateness max): a percentile that is its level's largest
	// reading (p95 of fewer than 20 requests) is moved by any one stall.
	ClientError, ClientErrorMax float64
	// Shared: the level was sent by several shards, each of whose
	// requests the server counted, so that its counters cannot be set
	// against one process's requests (no foreign-load figure).
	Shared bool

	// TTFT and E2E are the increases of the server's time-to-first-token
	// and end-to-end latency histograms over the level.
	TTFT, E2E Buckets

	// ModelMem and ModelVRAM are the most memory and VRAM the server's
	// loaded models held (Ollama's /api/ps size and size_vram, summed
	// over its models), in bytes; Models names them with their sizes.
	ModelMem, ModelVRAM float64
	Models              []string
	// RSS is the server process's peak resident memory over the level, in
	// bytes (its children's included), and CPU the CPU time it used, in
	// seconds, over Wall: what a server running on this machine shows.
	RSS, CPU float64
	Wall     time.Duration

	// Notes are caveats: a family that vanished, series sampled, a
	// counter that went back (a restart).
	Notes []string
}

// MaxQueueValues bounds the queue depths kept per level, so that a soak
// read every second for hours keeps a bounded sample of them.
const MaxQueueValues = 1 << 14

// maxNotes bounds the errors and notes kept: the first few say what
// happened, and repeating them says nothing more.
const maxNotes = 8

// NewServer returns an account with nothing read yet: every figure NaN.
func NewServer() *Server {
	nan := math.NaN()
	return &Server{QueueMax: nan, RunningMax: nan, KVPeak: nan, Requests: nan, Preemptions: nan,
		CacheQueries: nan, CacheHits: nan, CacheRate: nan, ModelMem: nan, ModelVRAM: nan, RSS: nan, CPU: nan}
}

// Peak raises *v to x: a NaN *v (nothing read yet) becomes x.
func Peak(v *float64, x float64) {
	if math.IsNaN(*v) || x > *v {
		*v = x
	}
}

// AddQueue keeps one queue depth read.
func (s *Server) AddQueue(x float64) {
	if len(s.Queue) == MaxQueueValues {
		// Halve, keeping every other value: the sample stays spread over
		// the whole level.
		for i := range MaxQueueValues / 2 {
			s.Queue[i] = s.Queue[2*i]
		}
		s.Queue = s.Queue[:MaxQueueValues/2]
	}
	s.Queue = append(s.Queue, x)
	Peak(&s.QueueMax, x)
}

// Note adds a caveat once.
func (s *Server) Note(format string, a ...any) { addOnce(&s.Notes, fmt.Sprintf(format, a...)) }

// Fail counts a failed reading and keeps its error once.
func (s *Server) Fail(err string) {
	s.Failed++
	addOnce(&s.Errors, err)
}

func addOnce(list *[]string, msg string) {
	if len(*list) < maxNotes && !slices.Contains(*list, msg) {
		*list = append(*list, msg)
	}
}

// QueueP95 is the 95th percentile of the queue depths read; NaN with none.
func (s *Server) QueueP95() float64 {
	q := slices.Clone(s.Queue)
	slices.Sort(q)
	return Percentile(q, 95)
}

// PrefixHit is the prefix cache's hit rate over the level: tokens found /
// tokens looked up, else the server's own rate gauge; NaN when neither
// was read or nothing was looked up.
func (s *Server) PrefixHit() float64 {
	if s.CacheQueries > 0 {
		return s.CacheHits / s.CacheQueries
	}
	return s.CacheRate
}

// Foreign is the share of requests the server finished over the level
// beyond those the client sent: (finished − sent) / sent, 0 when it
// finished no more. Someone else loading the server makes it positive:
// the figures are not this run's alone. It falls back on the TTFT
// histogram's count when the server has no request counter; NaN when
// neither was read, nothing was sent, or the level was shared by shards.
func (s *Server) Foreign() float64 {
	got := s.Requests
	if math.IsNaN(got) && s.TTFT.N() > 0 {
		got = s.TTFT.N()
	}
	if s.Shared || s.Sent == 0 || math.IsNaN(got) {
		return math.NaN()
	}
	return max(0, got-float64(s.Sent)) / float64(s.Sent)
}

// ForeignText says what the foreign-load figure stands on: "the server
// finished 60 requests over the level, 50 sent here".
func (s *Server) ForeignText() string {
	got, what := s.Requests, "finished"
	if math.IsNaN(got) {
		got, what = s.TTFT.N(), "timed the first token of"
	}
	text := fmt.Sprintf("the server %s %.0f requests over the level, %d sent here", what, got, s.Sent)
	if s.Foreign() > 0 {
		text += ": someone else is loading it, and its figures are not this run's alone"
	}
	return text
}

// CPUCores is the CPU the server process used over the level, in cores
// (CPU seconds per second); NaN when it was not read.
func (s *Server) CPUCores() float64 {
	if s.Wall <= 0 {
		return math.NaN()
	}
	return s.CPU / s.Wall.Seconds()
}

// Merge adds o, another run of the same level, to s: counters and
// histograms add (unknown in either is unknown in both), peaks take the
// higher, queue depths pool.
func (s *Server) Merge(o *Server) {
	if s.Readings == 0 && s.Sent == 0 {
		// Nothing merged yet: o's figures, NaN where o has none.
		*s = *o
		s.Queue, s.Errors, s.Notes, s.Models = slices.Clone(o.Queue), slices.Clone(o.Errors), slices.Clone(o.Notes), slices.Clone(o.Models)
		s.TTFT, s.E2E = Buckets{}, Buckets{}
		s.TTFT.Add(o.TTFT)
		s.E2E.Add(o.E2E)
		return
	}
	s.Readings += o.Readings
	s.Failed += o.Failed
	for _, e := range o.Errors {
		addOnce(&s.Errors, e)
	}
	for _, n := range o.Notes {
		addOnce(&s.Notes, n)
	}
	for _, x := range o.Queue {
		s.AddQueue(x)
	}
	for _, p := range []struct{ to, from *float64 }{
		{&s.QueueMax, &o.QueueMax}, {&s.RunningMax, &o.RunningMax}, {&s.KVPeak, &o.KVPeak},
		{&s.ModelMem, &o.ModelMem}, {&s.ModelVRAM, &o.ModelVRAM}, {&s.RSS, &o.RSS},
	} {
		if !math.IsNaN(*p.from) {
			Peak(p.to, *p.from)
		}
	}
	s.Requests += o.Requests
	s.Preemptions += o.Preemptions
	s.CacheQueries += o.CacheQueries
	s.CacheHits += o.CacheHits
	s.CPU += o.CPU
	if !math.IsNaN(o.CacheRate) {
		s.CacheRate = o.CacheRate
	}
	s.Sent += o.Sent
	s.ClientError = max(s.ClientError, o.ClientError)
	s.ClientErrorMax = max(s.ClientErrorMax, o.ClientErrorMax)
	s.Shared = s.Shared || o.Shared
	s.Wall += o.Wall
	for _, m := range o.Models {
		addOnce(&s.Models, m)
	}
	if !s.TTFT.Add(o.TTFT) {
		s.Note("the TTFT histogram's buckets changed between runs: its percentiles are not measured")
	}
	if !s.E2E.Add(o.E2E) {
		s.Note("the e2e histogram's buckets changed between runs: its percentiles are not measured")
	}
}

// WithClient is srv with the client's own error over the level (ms,
// health.Figures.ErrorBound and ErrorBoundMax), a copy; nil stays nil.
func (srv *Server) WithClient(errMs, errMaxMs float64) *Server {
	if srv == nil {
		return nil
	}
	c := *srv
	c.ClientError, c.ClientErrorMax = max(errMs, 0), max(errMaxMs, errMs, 0)
	return &c
}

// clientError is the client's error on its percentile p of n readings:
// from its worst wake when the percentile is the largest reading
// (n·(1 − p) < 1), from its p99 otherwise.
func (srv *Server) clientError(p float64, n int) float64 {
	if float64(n)*(1-p/100) < 1 {
		return max(srv.ClientErrorMax, srv.ClientError)
	}
	return srv.ClientError
}

// agreedPercentiles are the client's TTFT percentiles held to the server's.
var agreedPercentiles = []int{50, 95}

// TTFTGap is how far the client's TTFT p50 and p95 lie outside what the
// server's own TTFT histogram allows for the same requests: the bucket
// bounds its percentile lies between, the upper one plus the network time
// measured (the longest time to headers, which holds the connect). 0
// inside, the larger distance in ms outside; NaN when either side was not
// measured. detail says both figures.
func (st *Stats) TTFTGap() (gap float64, detail string) {
	srv := st.Server
	if srv == nil || srv.TTFT.N() == 0 || st.TTFT.N == 0 {
		return math.NaN(), ""
	}
	net := 0.0
	if st.TTFB.N > 0 {
		net = st.TTFB.Max
	}
	gap = 0
	worstErr := 0.0
	var client, server []string
	for _, p := range agreedPercentiles {
		c, _ := st.TTFT.At(p)
		lo, hi, _ := srv.TTFT.Within(float64(p))
		e := srv.clientError(float64(p), st.TTFT.N)
		lo, hi = lo*1000-e, hi*1000+net+e
		worstErr = max(worstErr, e)
		gap = max(gap, lo-c, c-hi)
		client = append(client, fmt.Sprintf("p%d %s ms", p, msText(c/1000)))
		server = append(server, fmt.Sprintf("p%d in %s", p, srv.TTFT.WithinText(float64(p))))
	}
	detail = fmt.Sprintf("client ttft %s (n=%d); server ttft %s (n=%.0f), plus network ≤ %s ms",
		strings.Join(client, ", "), st.TTFT.N, strings.Join(server, ", "), srv.TTFT.N(), msText(net/1000))
	if worstErr > 0 {
		detail += fmt.Sprintf(", ± the client's own error %s ms", msText(worstErr/1000))
	}
	if gap > 0 {
		detail = "client and server disagree about TTFT: " + detail
	}
	return max(gap, 0), detail
}
