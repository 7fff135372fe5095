package report

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
)

// LagBound is how late a client may send before its open-loop figures say
// it fell behind (METRICS.md: lag p95 above 1 ms), unless LagShare of the
// level's median TTFT is more: a 2 ms lag does not move a 500 ms TTFT.
const (
	LagBound = 1.0  // ms
	LagShare = 0.05 // of ttft p50
)

// PromptTolerance is how far a synthetic prompt's measured length may be
// from its target before the report says so.
const PromptTolerance = 0.10

// Load writes what the load shapes add under the verdict table: per
// open-loop level the achieved rate and the lag, with a warning when the
// client fell behind its schedule; per prompt-length level a warning when
// the measured length is off its target; per run the prefill fit; and per
// soak its time slices.
func Load(w io.Writer, vs []objective.Verdict) {
	for _, v := range vs {
		st := v.Stats
		if st.Open.Scheduled {
			rate, _ := v.Level.Float("rate")
			l := st.Open.Lag
			note := ""
			if math.Abs(st.Open.Planned/rate-1) > 0.01 {
				note = fmt.Sprintf("; a random schedule of %d is off its mean rate by about ±%s", l.N, metric.Pct(1/math.Sqrt(float64(max(l.N, 1)))))
			}
			say(w, "open loop (%s): sent at %s req/s, scheduled %s (asked %s%s); lag p50/p95/p99/max %s/%s/%s/%s ms",
				where(v), metric.Num(st.Open.Achieved), metric.Num(st.Open.Planned), metric.Num(rate), note,
				metric.Num(l.P50), metric.Num(l.P95), metric.Num(l.P99), metric.Num(l.Max))
			if bound := math.Max(LagBound, LagShare*st.TTFT.P50); l.P95 > bound {
				say(w, "WARNING (%s): the client fell behind its schedule: lag p95 %s ms > %s ms (1 ms or 5%% of ttft p50). "+
					"The *_sched latencies count that wait, the others leave it out: read it as a busy client or a max_concurrency cap, not a slow server.",
					where(v), metric.Num(l.P95), metric.Num(bound))
			}
		}
		if want, ok := v.Level.Float("prompt_tokens"); ok {
			got := st.PromptTokens.Mean
			if math.IsNaN(got) || math.Abs(got-want) > PromptTolerance*want {
				say(w, "WARNING (%s): prompts measured %s tokens on average (usage.prompt_tokens), %s%% off the %s asked: the length labels are approximate for this tokenizer",
					where(v), metric.Num(got), metric.Num(100*math.Abs(got-want)/want), metric.Num(want))
			}
		}
	}
	var longest time.Duration
	apart := false
	for _, v := range vs {
		st := v.Stats
		longest = max(longest, st.LongestRun)
		if o := st.Overlap; o < 0.9 {
			why := fmt.Sprintf("they started %s apart", st.StartSpread.Round(time.Millisecond))
			if st.StartSpread <= LateStart(st.LongestRun) {
				why = "they started together and ended apart (runs of few requests differ in length; more requests a run even them out)"
			} else {
				apart = true
			}
			say(w, "WARNING (%s): the shards' measured windows overlap %s only: %s, and throughput over their union understates what they sent at once",
				where(v), metric.Pct(o), why)
		}
		if st.LateShard != "" && st.StartLag > LateStart(st.LongestRun) {
			apart = true
			say(w, "WARNING (%s): shard %s started a run %s after the instant agreed for it (-start-at, -level-every), and sent alone for that long",
				where(v), st.LateShard, st.StartLag.Round(time.Millisecond))
		}
	}
	if apart {
		say(w, "to keep shards together: start them with -start-at a time they all reach, and give each run a slot with -level-every %s or more (the longest run took %s; a slot also holds go test's probe and the warm-up)",
			slotFor(longest), longest.Round(time.Millisecond))
	}
	seen := map[string]bool{}
	for _, v := range vs {
		key := v.Scenario + "/" + v.Endpoint
		if f := v.Stats.Prefill; f.N > 0 && !seen[key] {
			seen[key] = true
			say(w, "prefill (%s endpoint=%s): ttft = %s ms + %s ms per 1k prompt tokens (± %s, n=%d)",
				v.Scenario, v.Endpoint, metric.Num(f.A), metric.Num(f.PerKTok()), metric.Num(1000*f.BErr), f.N)
		}
	}
	for _, v := range vs {
		if len(v.Stats.Slices) > 1 {
			Slices(w, v)
		}
	}
}

// Slices writes a soak's time slices, one line each.
func Slices(w io.Writer, v objective.Verdict) {
	say(w, "time slices (%s), drift %s:", where(v), metric.Signed(v.Stats.Drift()))
	for _, s := range v.Stats.Slices {
		say(w, "  %s: n=%d ttft p50/p95 %s/%s ms, errors %s", s.Name(), s.N,
			metric.Num(s.TTFT.P50), metric.Num(s.TTFT.P95), metric.Pct(s.ErrorRate()))
	}
}

// LateStart is how late a shard may start a run of the given length
// before the report warns: 5% of it, at least 50 ms (a process's start-up
// and a clock's skew).
func LateStart(run time.Duration) time.Duration {
	return max(50*time.Millisecond, run/20)
}

// slotFor is a -level-every that fits a run of length d with a margin
// for go test's probe and the warm-up: 1.5 d, rounded up to a second.
func slotFor(d time.Duration) time.Duration {
	return (d + d/2 + time.Second - 1).Truncate(time.Second)
}
