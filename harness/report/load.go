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
			l := st.Open.Lag
			say(w, "open loop (%s): %s; lag p50/p95/p99/max %s/%s/%s/%s ms",
				where(v), rateSent(v), metric.Num(l.P50), metric.Num(l.P95), metric.Num(l.P99), metric.Num(l.Max))
			if bound := math.Max(LagBound, LagShare*st.TTFT.P50); l.P95 > bound {
				say(w, "WARNING (%s): the client fell behind its schedule: lag p95 %s ms > %s ms (1 ms or 5%% of ttft p50). "+
					"The *_sched latencies count that wait, the others leave it out: read it as a busy client or a max_concurrency cap, not a slow server.",
					where(v), metric.Num(l.P95), metric.Num(bound))
			}
		}
		traceLengths(w, v)
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
		say(w, "to keep shards together: start them with -start-at a time they all reach, and give each run a slot with -level-every of at least %s (the longest run took %s; a slot also holds go test's probe and the warm-up; a shard late for a slot of that length started late, not ran long)",
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

// rateSent is the rate an open-loop level was sent at, scheduled at and
// asked: a shard's share of the level's rate for the runs of a shard of N
// (alone or merged, each run is sent at rate/N). A level of one rate is
// scheduled at that rate exactly (n requests over n/rate seconds); only
// part of a schedule sent (a soak cut at its duration, a stopped run) is
// off it, as a part of a random schedule is: about 1/√n. A level without
// one rate (a ramp) has none to compare with.
func rateSent(v objective.Verdict) string {
	o := v.Stats.Open
	s := fmt.Sprintf("sent at %s req/s, scheduled %s", metric.Num(o.Achieved), metric.Num(o.Planned))
	if o.Shards > 1 {
		s = fmt.Sprintf("each of %d shards %s", o.Shards, s)
	}
	rate, ok := v.Level.Float("rate")
	if !ok {
		return s
	}
	share := rate / float64(o.Shards)
	s += " (asked " + metric.Num(share)
	if o.Shards > 1 {
		s += ", its share of " + metric.Num(rate)
	}
	if off := o.Planned/share - 1; math.Abs(off) > 0.01 {
		n := o.Lag.N
		s += fmt.Sprintf("; %+.1f%% off it: only part of the schedule was sent (a soak's duration, a stopped run), and %d requests of a random schedule are off its rate by about ±%s",
			100*off, n, metric.Pct(1/math.Sqrt(float64(max(n, 1)))))
	}
	return s + ")"
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
