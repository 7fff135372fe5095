package gate

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/sample"
)

// Added is the TTFT the candidate of an interleaved A/B run adds to the
// base's, request for request: the median over the pairs (each case sent
// to both in the same instant of the run, load.Interleave) of candidate
// minus base, with its distribution-free 95% interval. It is what a
// gateway in front of a model costs — the same model behind its own API
// (api: messages) as the base and through an OpenAI-compatible gateway
// (api: chat) as the candidate — whether or not the gate's tolerance
// calls it a regression: a pair shares the machine, the network and the
// server's load, so their difference is the path's alone.
type Added struct {
	Scenario string
	Level    sample.Level // "" for every level pooled
	Pairs    int
	// Median and its interval [Lo, Hi], in ms; an interval side the
	// pairs are too few to bound is ±Inf.
	Median, Lo, Hi float64
}

// AddedTTFT is Added per scenario, each level in the order the base ran
// them, then (with several) its levels pooled. A pair is the two
// measured requests of slots 2k and 2k+1 of a run (load.Interleave's),
// one from each side, asking the same case, both with a first token: a
// failure or an embeddings request (no token) has no TTFT to subtract.
func AddedTTFT(base, cand []sample.Sample) []Added {
	type slot struct {
		scenario string
		level    sample.Level
		run      string
		pair     int
	}
	key := func(s *sample.Sample) slot { return slot{s.Scenario, s.Level, s.Run, s.Seq / 2} }
	timed := func(s *sample.Sample) bool { return s.Measured() && s.OK() && s.TTFT > 0 }
	other := map[slot]*sample.Sample{}
	for i := range cand {
		if timed(&cand[i]) {
			other[key(&cand[i])] = &cand[i]
		}
	}
	var scenarios []string
	levels := map[string][]sample.Level{}
	diffs := map[string]map[sample.Level][]float64{}
	for i := range base {
		b := &base[i]
		c, ok := other[key(b)]
		if !timed(b) || !ok || c.Case != b.Case {
			continue
		}
		if diffs[b.Scenario] == nil {
			scenarios, diffs[b.Scenario] = append(scenarios, b.Scenario), map[sample.Level][]float64{}
		}
		if diffs[b.Scenario][b.Level] == nil {
			levels[b.Scenario] = append(levels[b.Scenario], b.Level)
		}
		diffs[b.Scenario][b.Level] = append(diffs[b.Scenario][b.Level], float64(c.TTFT-b.TTFT)/1e6)
	}
	var out []Added
	for _, sc := range scenarios {
		var all []float64
		for _, l := range levels[sc] {
			out = append(out, added(sc, l, diffs[sc][l]))
			all = append(all, diffs[sc][l]...)
		}
		if len(levels[sc]) > 1 {
			out = append(out, added(sc, "", all))
		}
	}
	return out
}

// added is the Added of the differences ds.
func added(scenario string, l sample.Level, ds []float64) Added {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	lo, hi := inference.QuantileRanks(len(ds), 0.5, 0.95)
	n := len(ds)
	mid := (ds[(n-1)/2] + ds[n/2]) / 2
	return Added{Scenario: scenario, Level: l, Pairs: n, Median: mid, Lo: inference.Quantile(ds, lo), Hi: inference.Quantile(ds, hi)}
}

// writeAdded writes a line per level and pooled, under a head naming
// the sides: "  chat concurrency=1: +4.97 ms (+4.753 … +5.193) over 100
// pairs".
func writeAdded(w io.Writer, base, cand string, added []Added) {
	if len(added) == 0 {
		return
	}
	fmt.Fprintf(w, "ttft %s adds to %s, request for request (median of the interleaved pairs' differences, 95%% CI):\n", cand, base)
	for _, a := range added {
		where := strings.TrimSpace(a.Scenario + " " + string(a.Level))
		if a.Level == "" {
			where += " (its levels pooled)"
		}
		fmt.Fprintf(w, "  %s: %s ms (%s … %s) over %d pairs\n", where, signed(a.Median), signed(a.Lo), signed(a.Hi), a.Pairs)
	}
}

// signed is a difference in ms with its sign, ±Inf as "−∞"/"+∞".
func signed(ms float64) string {
	switch {
	case math.IsInf(ms, 1):
		return "+∞"
	case math.IsInf(ms, -1):
		return "−∞"
	case ms >= 0:
		return "+" + metric.Precise(ms)
	}
	return metric.Precise(ms)
}
