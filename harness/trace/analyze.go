package trace

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Analysis is what a trace holds: its size and pace, how bursty its
// arrivals are, its lengths and how much of its prompts production's
// prefix cache could have found.
type Analysis struct {
	Rows     int
	Duration time.Duration // first row to last
	Rate     float64       // (rows − 1) / duration, requests per second
	// Bin and PerBin are the rate over time: requests in each bin from
	// the first row.
	Bin    time.Duration
	PerBin []int
	// Burstiness is the gamma shape that fits the gaps between arrivals
	// by their moments (mean² / variance): 1 Poisson, below 1 burstier.
	Burstiness    float64
	Input, Output sample.Hist // tokens, counted as nanoseconds
	// PrefixShare is the prompt tokens in blocks (hash ids) an earlier
	// row already sent, over all prompt tokens: what a prefix cache that
	// never evicts would find. Hashed says the trace has hash ids at all;
	// Unseen says the hashes outgrew what is tracked, and the share is a
	// lower bound.
	PrefixShare float64
	Hashed      bool
	Unseen      bool
}

// maxSeen bounds the hash ids an analysis remembers.
const maxSeen = 1 << 22

// maxBins bounds the bins of the rate over time.
const maxBins = 60

// Analyze reads a trace (spec's crop applied) and describes it.
func Analyze(spec Spec) (Analysis, error) {
	sum, err := Scan(spec)
	if err != nil {
		return Analysis{}, err
	}
	a := Analysis{Rows: sum.Rows, Duration: sum.Span, Bin: binFor(sum.Span), Hashed: sum.Hashed}
	if sum.Span > 0 {
		a.Rate = float64(sum.Rows-1) / sum.Span.Seconds()
	}
	a.PerBin = make([]int, int(sum.Span/a.Bin)+1)
	seen := map[int64]bool{}
	var shared, input float64
	var gaps, gaps2 float64
	prev := time.Duration(-1)
	err = Each(spec, func(row Row, off time.Duration) error {
		a.PerBin[min(int(off/a.Bin), len(a.PerBin)-1)]++
		if prev >= 0 {
			g := (off - prev).Seconds()
			gaps, gaps2 = gaps+g, gaps2+g*g
		}
		prev = off
		a.Input.Add(time.Duration(row.Input))
		a.Output.Add(time.Duration(row.Output))
		input += float64(row.Input)
		lead := true
		for k, h := range row.Hashes {
			if lead && seen[h] {
				shared += float64(max(0, min(spec.block(), row.Input-k*spec.block())))
			} else {
				lead = false
			}
			if len(seen) < maxSeen {
				seen[h] = true
			} else if !seen[h] {
				a.Unseen = true
			}
		}
		return nil
	})
	if err != nil {
		return Analysis{}, err
	}
	if n := float64(sum.Rows - 1); n > 1 {
		mean := gaps / n
		if v := (gaps2 - n*mean*mean) / (n - 1); v > 0 {
			a.Burstiness = mean * mean / v
		}
	}
	a.PrefixShare = shared / input
	return a, nil
}

// binFor is a round bin that cuts span into at most maxBins.
func binFor(span time.Duration) time.Duration {
	for _, b := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute,
		5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour} {
		if span/b < maxBins {
			return b
		}
	}
	return span/maxBins + 1
}

// Write prints the analysis for people.
func (a Analysis) Write(w io.Writer) {
	fmt.Fprintf(w, "rows %d over %s: %.3g req/s on average\n", a.Rows, a.Duration.Round(time.Millisecond), a.Rate)
	if a.Burstiness > 0 {
		fmt.Fprintf(w, "burstiness %.3g (the gamma shape of the gaps: 1 Poisson, below 1 burstier)\n", a.Burstiness)
	}
	for _, l := range []struct {
		name string
		h    *sample.Hist
	}{{"input", &a.Input}, {"output", &a.Output}} {
		fmt.Fprintf(w, "%s tokens: mean %.0f, p50 %.0f, p90 %.0f, p99 %.0f, max %d\n", l.name,
			Mean(l.h), l.h.Percentile(50), l.h.Percentile(90), l.h.Percentile(99), int64(l.h.Max))
	}
	switch {
	case !a.Hashed:
		fmt.Fprintln(w, "shared prefixes: the trace has no hash ids")
	case a.Unseen:
		fmt.Fprintf(w, "shared prefixes: at least %.1f%% of prompt tokens (too many hash ids to track them all)\n", 100*a.PrefixShare)
	default:
		fmt.Fprintf(w, "shared prefixes: %.1f%% of prompt tokens were in blocks an earlier row sent\n", 100*a.PrefixShare)
	}
	fmt.Fprintf(w, "rate over time (req/s per %s):", a.Bin)
	for _, n := range a.PerBin {
		fmt.Fprintf(w, " %.3g", float64(n)/a.Bin.Seconds())
	}
	fmt.Fprintln(w)
}

// Mean is a histogram's mean, NaN when it is empty.
func Mean(h *sample.Hist) float64 {
	if h.N == 0 {
		return math.NaN()
	}
	return float64(h.Sum) / float64(h.N)
}
