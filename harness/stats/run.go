package stats

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Stats is one run (one scenario × one endpoint × one load level, its
// repetitions pooled) summarised as METRICS.md defines it. It is a view over
// samples: every field is computed from them, so runs merge by pooling
// samples.
type Stats struct {
	Scenario string
	Endpoint string
	Level    sample.Level

	Attempted int
	Failed    int
	Errors    map[sample.ErrorKind]int

	// Latencies in milliseconds over successful warm requests.
	TTFT, TTFA, Total, TPOT, ITL Summary

	OutputTokens    int
	TokensEstimated int // requests whose count is estimated, not from usage
	// PromptTokens describes the measured prompt lengths (usage, or the
	// server's estimate) of successful requests; Points pairs each with its
	// TTFT, for the prefill fit of a prompt-length sweep.
	PromptTokens Summary
	// OutputLen describes the successful answers' output tokens, each
	// request's (a fixed answer length is checked against it).
	OutputLen Summary
	Points    []Point

	Wall time.Duration // the measured windows (first t0 to last end) of the runs, added up
	// Overlap is, for a run sent by several shards, how much their
	// measured windows overlap: the shortest intersection / union over the
	// runs (1: perfectly together); NaN when not sharded. Throughput over
	// shards only adds up when they sent at the same time.
	Overlap float64
	// StartSpread is how far apart the shards started the run that
	// overlapped least: small when they started together and only ended
	// apart (runs of different lengths).
	StartSpread time.Duration
	// LongestRun is the longest measured window of one run (one shard's,
	// in a sharded run): the least slot -level-every could give each run.
	// StartLag is the latest a shard started a run after the instant
	// agreed for it (-start-at, -level-every), and LateShard that shard.
	LongestRun   time.Duration
	StartLag     time.Duration
	LateShard    string
	ReqPerSec    float64 // completed requests / wall
	OutTokPerSec float64 // Σ output tokens / wall
	TokPerSec    float64 // Σ prompt and output tokens / wall
	// Embeds counts the embeddings requests attempted (samples with
	// inputs), Inputs the inputs their successful ones embedded, and
	// InputsPerSec is Inputs / wall: an embedding service's throughput,
	// which requests/s hides when a request carries a batch.
	Embeds       int
	Inputs       int
	InputsPerSec float64

	Quality sample.Tally
	// QualityOff counts the requests whose answers were not judged
	// (quality: off, -latency-only).
	QualityOff int
	Good       int     // requests meeting every latency and quality objective
	GoodPct    float64 // Good / Attempted

	// Cases holds, per fixture case asked, how it fared; FixtureCases is
	// the number of cases in the fixture (0 when the scenario has none).
	Cases        map[string]*Case
	FixtureCases int
	// Asked is the number of distinct cases asked in the whole run of the
	// scenario on the endpoint, every level together (coverage is per
	// scenario × endpoint); 0 until someone who saw every level sets it.
	Asked int

	// Open holds the open-loop figures: lag, latencies from the scheduled
	// start, achieved rate.
	Open Open
	// Trace holds a replayed trace's lengths asked and sent.
	Trace Trace
	// Slices are the run's time slices, small ones merged (a soak's drift).
	Slices []Slice
	// Prefill is the TTFT-vs-prompt-length fit of the scenario's whole run
	// on the endpoint (every level of a prompt-length sweep), set by whoever
	// saw every level; N == 0 until then.
	Prefill Fit

	// Colds are the cold first requests of the pooled runs (shards,
	// processes), outside the percentiles, none dropped; Cold is the first
	// of them, nil when there is none.
	Cold  *sample.Sample
	Colds []*sample.Sample

	// PeakInFlight is the most measured requests in flight at one instant.
	PeakInFlight int
	// Warnings are caveats that travel with the figures, e.g. a
	// concurrency level the run never reached.
	Warnings []string

	// Tools holds the tool-call and agent-loop figures (tools.go).
	Tools Tools
	// Cache is what the server said of its prefix cache.
	Cache Cache
	// Conv holds the figures of a run of conversations (turns.go).
	Conv Conversations
	// TTFB is t0 → response headers of successful requests, in ms: the
	// network time a server's own TTFT leaves out (TTFTGap). Tokens is
	// how usage and the stream agreed about output tokens. Server is the
	// server's own account of the level (its metrics scraped), nil when
	// none was read; whoever has the scrapes sets it.
	TTFB   Summary
	Tokens Tokens
	Server *Server
}

// Case is how one fixture case fared in a run: how often it was asked, how
// often its answer failed a quality check, and the last failure.
type Case struct {
	ID            string
	Asked, Failed int
	// Passed counts the tries whose answer was checked and passed: with
	// Failed, the tries a case_pass_min objective reads (an answer that
	// errored, or was not checked, is neither).
	Passed        int
	Expected, Got string
	Detail        string
}

// Consistent is the share of the cases checked that passed every try,
// and how many were checked; NaN when none was.
func (st *Stats) Consistent() (float64, int) {
	n, all := 0, 0
	for _, c := range st.Cases {
		if c.Passed+c.Failed == 0 {
			continue
		}
		n++
		if c.Failed == 0 {
			all++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return float64(all) / float64(n), n
}

// WorstCases returns the cases that failed, most failures first (then by
// failure rate and id), at most n of them.
func (st *Stats) WorstCases(n int) []*Case {
	var out []*Case
	for _, c := range st.Cases {
		if c.Failed > 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Failed != b.Failed {
			return a.Failed > b.Failed
		}
		if ra, rb := float64(a.Failed)/float64(a.Asked), float64(b.Failed)/float64(b.Asked); ra != rb {
			return ra > rb
		}
		return a.ID < b.ID
	})
	return out[:min(n, len(out))]
}

// ErrorRate is failed / attempted, all kinds together.
func (st *Stats) ErrorRate() float64 {
	if st.Attempted == 0 {
		return math.NaN()
	}
	return float64(st.Failed) / float64(st.Attempted)
}

// Coverage is distinct cases asked in the whole run / cases in the
// fixture; NaN without a fixture, or before Asked is known.
func (st *Stats) Coverage() float64 {
	if st.FixtureCases == 0 || st.Asked == 0 {
		return math.NaN()
	}
	return float64(st.Asked) / float64(st.FixtureCases)
}

// Summarize computes the Stats of the warm, measured samples of a run; the
// cold and warm-up samples are set apart (the cold one is kept in Cold).
// good says whether a successful sample met every per-request objective of
// its scenario (package objective makes it); nil counts none as good.
func Summarize(samples []sample.Sample, good func(*sample.Sample) bool) *Stats {
	st := &Stats{Errors: map[sample.ErrorKind]int{}, Cases: map[string]*Case{}}
	n := len(samples)
	ttft := make([]float64, 0, n)
	ttfa := make([]float64, 0, n)
	total := make([]float64, 0, n)
	tpot := make([]float64, 0, n)
	ttfb := make([]float64, 0, n)
	var prompt, outs []float64
	var itl sample.Hist // pooled: every gap of every request
	runs := map[string]*run{}
	var open openLoop
	var slices slicer
	spans := make([][2]int64, 0, n)
	for i := range samples {
		s := &samples[i]
		if s.Cold {
			st.Colds = append(st.Colds, s)
			continue
		}
		if s.Warmup {
			continue
		}
		if st.Attempted == 0 {
			st.Scenario, st.Endpoint, st.Level = s.Scenario, s.Endpoint, s.Level
		}
		st.Attempted++
		if s.Embeds() {
			st.Embeds++
		}
		if s.Case != "" {
			st.addCase(s)
		}
		st.FixtureCases = max(st.FixtureCases, s.FixtureCases)
		if s.QualityOff {
			st.QualityOff++
		}
		if s.StartLag > st.StartLag {
			st.StartLag, st.LateShard = s.StartLag, s.Shard
		}
		r := runs[s.Run]
		if r == nil {
			r = &run{group: runGroup(s)}
			runs[s.Run] = r
		}
		r.add(s)
		open.add(s)
		slices.add(s)
		spans = append(spans, spanOf(s))
		if s.Quality != nil {
			st.Quality.Add(*s.Quality)
		}
		if !s.OK() {
			st.Failed++
			st.Errors[s.ErrKind]++
			continue
		}
		total = append(total, Ms(s.Total))
		ttfb = append(ttfb, Ms(s.TTFB))
		st.Tokens.add(s)
		if s.TTFT > 0 {
			ttft = append(ttft, Ms(s.TTFT))
		}
		if s.TTFA > 0 {
			ttfa = append(ttfa, Ms(s.TTFA))
		}
		if d, ok := s.TPOT(); ok {
			tpot = append(tpot, Ms(d))
		}
		itl.Merge(s.ITL)
		st.OutputTokens += s.OutputTokens
		st.Inputs += s.Inputs
		outs = append(outs, float64(s.OutputTokens))
		st.Trace.add(s)
		if s.PromptTokens > 0 {
			prompt = append(prompt, float64(s.PromptTokens))
			if s.TTFT > 0 {
				st.Points = append(st.Points, Point{float64(s.PromptTokens), Ms(s.TTFT)})
			}
		}
		if s.TokenSource == sample.TokensEstimated {
			st.TokensEstimated++
		}
		if good != nil && good(s) {
			st.Good++
		}
	}
	if len(st.Colds) > 0 {
		st.Cold = st.Colds[0]
	}
	st.TTFT, st.TTFA, st.Total = Describe(ttft), Describe(ttfa), Describe(total)
	st.TPOT, st.ITL = Describe(tpot), DescribeHist(&itl)
	st.TTFB = Describe(ttfb)
	st.Open, st.Slices = open.summary(runs), slices.slices()
	st.PromptTokens, st.OutputLen = Describe(prompt), Describe(outs)
	st.Trace.means()
	st.Wall, st.Overlap, st.StartSpread = wall(runs)
	for _, r := range runs {
		st.LongestRun = max(st.LongestRun, r.last.Sub(r.first))
	}
	st.PeakInFlight = peakInFlight(spans)
	st.Tools = summarizeTools(samples)
	st.loadWarnings(runs)
	st.batchWarnings(samples)
	st.Cache = summarizeCache(samples)
	st.Warnings = append(st.Warnings, st.Cache.warnings()...)
	st.Conv = conversations(samples)
	if secs := st.Wall.Seconds(); secs > 0 {
		st.ReqPerSec = float64(st.Attempted-st.Failed) / secs
		st.OutTokPerSec = float64(st.OutputTokens) / secs
		st.TokPerSec = st.OutTokPerSec
		st.InputsPerSec = float64(st.Inputs) / secs
		if n := st.PromptTokens.N; n > 0 {
			st.TokPerSec += st.PromptTokens.Mean * float64(n) / secs
		}
	}
	if st.Attempted > 0 {
		st.GoodPct = float64(st.Good) / float64(st.Attempted)
	}
	return st
}

func (st *Stats) addCase(s *sample.Sample) {
	c := st.Cases[s.Case]
	if c == nil {
		c = &Case{ID: s.Case}
		st.Cases[s.Case] = c
	}
	if s.Turn <= 1 {
		c.Asked++ // a conversation asks its case once, whatever its turns
	}
	if q := s.Quality; q != nil && q.Pass() {
		c.Passed++
	}
	if q := s.Quality; q != nil && !q.Pass() {
		c.Failed++
		c.Expected, c.Got = q.Expected, q.Got
		c.Detail = q.Detail
		if c.Detail == "" {
			c.Detail = q.SchemaError
		}
	}
}

// run is what Summarize keeps of each run pooled (the -count repetitions
// of a benchmark, the shards of a sharded run, each have their own):
// its measured requests, its measured window (first t0 to last end), and
// the first and last instants requests were sent at and scheduled for.
type run struct {
	window
	group         string        // the runs of a shard set sent together share one
	sent          int           // measured requests
	lastT0        time.Time     // the first t0 is window.first
	firstS, lastS time.Duration // scheduled instants, from the start of the run
}

func (r *run) add(s *sample.Sample) {
	if r.sent == 0 {
		r.window = window{s.Start, s.End()}
		r.lastT0, r.firstS, r.lastS = s.Start, s.Sched, s.Sched
	}
	r.sent++
	r.window.add(s.Start, s.End())
	if s.Start.After(r.lastT0) {
		r.lastT0 = s.Start
	}
	r.firstS, r.lastS = min(r.firstS, s.Sched), max(r.lastS, s.Sched)
}

// window is a measured window: first t0 to last end. Runs pooled together
// add their windows, so that the time between runs does not dilute
// throughput.
type window struct{ first, last time.Time }

// wall adds up the windows of the runs, and returns how much the shards'
// windows overlapped (NaN when there are no shards). The runs of the
// shards of one sharded run count once, over the union of their windows:
// when the shards sent together (a common -start-at) that is the window a
// single machine would have had, and their requests over it the load they
// sent at once. When they did not, the union is longer than any one
// window and the throughput understated, never overstated; Overlap (the
// shards' common window over their union) says so, and spread how far
// apart the shards started that least overlapping run.
func wall(runs map[string]*run) (total time.Duration, overlap float64, spread time.Duration) {
	groups := map[string][]window{}
	for _, r := range runs {
		groups[r.group] = append(groups[r.group], r.window)
	}
	overlap = math.NaN()
	for _, ws := range groups {
		u, in := ws[0], ws[0]
		for _, w := range ws[1:] {
			u.add(w.first, w.last)
			if w.first.After(in.first) {
				in.first = w.first
			}
			if w.last.Before(in.last) {
				in.last = w.last
			}
		}
		span := u.last.Sub(u.first)
		total += span
		if len(ws) > 1 && span > 0 {
			o := max(0, float64(in.last.Sub(in.first))/float64(span))
			if math.IsNaN(overlap) || o < overlap {
				overlap, spread = o, in.first.Sub(u.first)
			}
		}
	}
	return total, overlap, spread
}

// runGroup is the window group of a sample's run: the run itself, or for
// a shard the same run of every shard. Shards run the same configuration in
// the same order, so the n-th run of each (the sequence number after the
// process id in the run id) is the same scenario, endpoint and level.
func runGroup(s *sample.Sample) string {
	if s.Shard == "" {
		return s.Run
	}
	_, n, _ := strings.Cut(s.Shard, "/")
	return "shards/" + n + "#" + s.Run[strings.LastIndexByte(s.Run, '.')+1:]
}

func (w *window) add(start, end time.Time) {
	if start.Before(w.first) {
		w.first = start
	}
	if end.After(w.last) {
		w.last = end
	}
}

// ErrorKinds lists the failed requests by kind: "rate_limited=3 truncated=1".
func (st *Stats) ErrorKinds() string {
	kinds := make([]string, 0, len(st.Errors))
	for k, n := range st.Errors {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(kinds)
	return strings.Join(kinds, " ")
}

// Ms is d in milliseconds, the unit of every latency figure.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
