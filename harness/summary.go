package harness

import (
	"math"
	"time"

	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/stats"
)

// Stats is one run (one scenario × one endpoint × one concurrency level)
// summarised as METRICS.md defines it. It is a view over samples: every
// field is computed from them, so runs merge by pooling samples.
type Stats struct {
	Scenario    string
	Endpoint    string
	Concurrency int

	Attempted int
	Failed    int
	Errors    map[ErrorKind]int

	// Latencies in milliseconds over successful warm requests.
	TTFT, TTFA, Total, TPOT, ITL stats.Summary

	OutputTokens    int
	TokensEstimated int // requests whose count is estimated, not from usage

	Wall         time.Duration // the measured windows (first t0 to last end) of the runs, added up
	ReqPerSec    float64       // completed requests / wall
	OutTokPerSec float64       // Σ output tokens / wall

	Quality quality.Tally
	Good    int     // requests meeting every latency and quality objective
	GoodPct float64 // Good / Attempted
	Goodput float64 // Good / wall, per second

	Cold *Sample // the run's cold first request, outside the percentiles
}

// ErrorRate is failed / attempted, all kinds together.
func (st *Stats) ErrorRate() float64 {
	if st.Attempted == 0 {
		return math.NaN()
	}
	return float64(st.Failed) / float64(st.Attempted)
}

// Summarize computes the Stats of the warm, measured samples of a run; the
// cold and warm-up samples are set apart (the cold one is kept in Cold).
// sla gives the per-request latency objectives of goodput.
func Summarize(samples []Sample, sla SLA) *Stats {
	st := &Stats{Errors: map[ErrorKind]int{}}
	n := len(samples)
	ttft := make([]float64, 0, n)
	ttfa := make([]float64, 0, n)
	total := make([]float64, 0, n)
	tpot := make([]float64, 0, n)
	var itl []float64
	windows := map[string]*window{}
	lim := goodLimits(sla)
	for i := range samples {
		s := &samples[i]
		if s.Cold {
			st.Cold = s
			continue
		}
		if s.Warmup {
			continue
		}
		if st.Scenario == "" {
			st.Scenario, st.Endpoint, st.Concurrency = s.Scenario, s.Endpoint, s.Concurrency
		}
		st.Attempted++
		w := windows[s.Run]
		if w == nil {
			w = &window{}
			windows[s.Run] = w
		}
		w.add(s.Start, s.Start.Add(s.Total))
		if s.Quality != nil {
			st.Quality.Add(*s.Quality)
		}
		if !s.OK() {
			st.Failed++
			st.Errors[s.ErrKind]++
			continue
		}
		total = append(total, ms(s.Total))
		if s.TTFT > 0 {
			ttft = append(ttft, ms(s.TTFT))
		}
		if s.TTFA > 0 {
			ttfa = append(ttfa, ms(s.TTFA))
		}
		if d, ok := s.TPOT(); ok {
			tpot = append(tpot, ms(d))
		}
		for _, g := range s.Gaps {
			itl = append(itl, ms(g))
		}
		st.OutputTokens += s.OutputTokens
		if s.TokenSource == TokensEstimated {
			st.TokensEstimated++
		}
		if lim.good(s) {
			st.Good++
		}
	}
	st.TTFT, st.TTFA, st.Total = stats.Summarize(ttft), stats.Summarize(ttfa), stats.Summarize(total)
	st.TPOT, st.ITL = stats.Summarize(tpot), stats.Summarize(itl)
	for _, w := range windows {
		st.Wall += w.last.Sub(w.first)
	}
	if secs := st.Wall.Seconds(); secs > 0 {
		st.ReqPerSec = float64(st.Attempted-st.Failed) / secs
		st.OutTokPerSec = float64(st.OutputTokens) / secs
		st.Goodput = float64(st.Good) / secs
	}
	if st.Attempted > 0 {
		st.GoodPct = float64(st.Good) / float64(st.Attempted)
	}
	return st
}

// window is the measured window of one run: first t0 to last end. Runs
// pooled together (the -count repetitions of a benchmark) add their windows,
// so that the time between runs does not dilute throughput.
type window struct{ first, last time.Time }

func (w *window) add(start, end time.Time) {
	if w.first.IsZero() || start.Before(w.first) {
		w.first = start
	}
	if end.After(w.last) {
		w.last = end
	}
}

// goodLimits are the per-request latency objectives, in ms (0: none).
type goodLimitSet struct{ ttft, ttfa, total, tpot float64 }

func goodLimits(sla SLA) goodLimitSet {
	get := func(m string) float64 { v, _ := sla.Limit(m); return v }
	return goodLimitSet{get("ttft"), get("ttfa"), get("total"), get("tpot")}
}

// good: the request succeeded, met every latency objective, and passed every
// quality check that ran on it.
func (l goodLimitSet) good(s *Sample) bool {
	over := func(d time.Duration, lim float64) bool { return lim > 0 && ms(d) > lim }
	if over(s.TTFT, l.ttft) || over(s.TTFA, l.ttfa) || over(s.Total, l.total) {
		return false
	}
	if tpot, ok := s.TPOT(); ok && over(tpot, l.tpot) {
		return false
	}
	return s.Quality.Pass()
}

// Figure returns the measured value a threshold is checked against, and the
// number of values behind it.
func (st *Stats) Figure(th Threshold) (float64, int) {
	pick := func(s stats.Summary) (float64, int) {
		v, _ := s.At(th.P)
		return v, s.N
	}
	switch th.Metric {
	case "ttft":
		return pick(st.TTFT)
	case "ttfa":
		return pick(st.TTFA)
	case "total":
		return pick(st.Total)
	case "tpot":
		return pick(st.TPOT)
	case "itl":
		return pick(st.ITL)
	case "error_rate":
		return st.ErrorRate(), st.Attempted
	case "good":
		if st.Attempted == 0 {
			return math.NaN(), 0
		}
		return st.GoodPct, st.Attempted
	case "json_valid":
		return st.Quality.JSONValidRate(), st.Quality.JSONChecked
	case "schema_valid":
		return st.Quality.SchemaValidRate(), st.Quality.SchemaChecked
	case "accuracy":
		return st.Quality.AccuracyRate(), st.Quality.MatchChecked
	}
	return math.NaN(), 0
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
