package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/stats"
)

// ServerLine is one line of what the server said of itself over a level
// (its metrics scraped: stats.Stats.Server), the figures it gave and the
// readings behind them; "" when none was read. Each figure the metric
// table defines reads as its row does; one not measured is left out.
func ServerLine(st *stats.Stats) string {
	s := st.Server
	if s == nil {
		return ""
	}
	var parts []string
	add := func(format string, a ...any) { parts = append(parts, fmt.Sprintf(format, a...)) }
	if !math.IsNaN(s.QueueMax) {
		add("queue p95 %s max %s", metric.Num(s.QueueP95()), metric.Num(s.QueueMax))
	}
	if !math.IsNaN(s.RunningMax) {
		add("running max %s", metric.Num(s.RunningMax))
	}
	if !math.IsNaN(s.KVPeak) {
		add("kv peak %s", metric.Pct(s.KVPeak))
	}
	if !math.IsNaN(s.Preemptions) {
		add("preemptions %.0f", s.Preemptions)
	}
	if v := s.PrefixHit(); !math.IsNaN(v) {
		add("prefix hit %s", metric.Pct(v))
	}
	for _, h := range []struct {
		name string
		b    stats.Buckets
	}{{"ttft", s.TTFT}, {"e2e", s.E2E}} {
		if h.b.N() > 0 {
			add("server %s %s, %s (n=%.0f)", h.name, bucketed(h.b, 50), bucketed(h.b, 95), h.b.N())
		}
	}
	if !math.IsNaN(s.ModelMem) {
		add("model memory %s MB, %s MB in VRAM (%s)", metric.Num(s.ModelMem/metric.MB), metric.Num(s.ModelVRAM/metric.MB), strings.Join(s.Models, "; "))
	}
	if !math.IsNaN(s.RSS) {
		add("process memory peak %s MB", metric.Num(s.RSS/metric.MB))
	}
	if v := s.CPUCores(); !math.IsNaN(v) {
		add("cpu %s cores", metric.Num(v))
	}
	if v := s.Foreign(); !math.IsNaN(v) {
		add("foreign %s", metric.Signed(v))
	}
	readings := Plural(s.Readings, "reading", "readings")
	if s.Failed > 0 {
		readings += fmt.Sprintf(", %d failed: %s", s.Failed, strings.Join(s.Errors, "; "))
	}
	if len(parts) == 0 {
		return "no server figure measured (" + readings + ")"
	}
	return strings.Join(parts, ", ") + " (" + readings + ")"
}

// bucketed is percentile p of a server's histogram: its estimate and the
// bucket it lies in, or only the bucket's bound when it is the first
// (an estimate placed in (0, 300] ms says nothing the bound does not).
func bucketed(b stats.Buckets, p float64) string {
	if lo, hi, ok := b.Within(p); ok && lo == 0 {
		return fmt.Sprintf("p%g ≤ %s ms", p, metric.Num(hi*1000))
	}
	return fmt.Sprintf("p%g %s ms in %s", p, metric.Num(b.Estimate(p)*1000), b.WithinText(p))
}

// writeServers writes, under the verdict table, the levels whose usage and
// streamed chunks disagreed, a line per level of what its server said, the caveats of those figures, and a warning for a
// level someone else's requests loaded (a failure only where the
// endpoint is exclusive: foreign_max).
func writeServers(w io.Writer, vs []objective.Verdict) {
	for _, v := range vs {
		if t := v.Stats.Tokens; t.Disagree > 0 {
			say(w, "tokens (%s): %s", where(v), t.Detail())
		}
	}
	for _, v := range vs {
		if line := ServerLine(v.Stats); line != "" {
			say(w, "server (%s): %s", where(v), line)
		}
	}
	writeServerNotes(w, vs)
	for _, v := range vs {
		if s := v.Stats.Server; s != nil && s.Foreign() > 0 && !v.Objectives.Has("foreign") {
			say(w, "WARNING (%s): foreign load: %s (exclusive: true fails it)", where(v), s.ForeignText())
		}
	}
}

// writeServerNotes writes each caveat of the servers' figures once, with
// the levels it holds for: the same note at every short level of a run
// is one line, not one a level.
func writeServerNotes(w io.Writer, vs []objective.Verdict) {
	var notes []string
	at := map[string][]string{}
	for _, v := range vs {
		if v.Stats.Server == nil {
			continue
		}
		for _, n := range v.Stats.Server.Notes {
			if _, ok := at[n]; !ok {
				notes = append(notes, n)
			}
			at[n] = append(at[n], where(v))
		}
	}
	for _, n := range notes {
		levels := at[n]
		if len(levels) == 1 {
			say(w, "server (%s): %s", levels[0], n)
			continue
		}
		say(w, "server (%d levels: %s): %s", len(levels), firstOf(levels, 3), n)
	}
}

// firstOf joins at most n of parts, and says how many more there are.
func firstOf(parts []string, n int) string {
	if len(parts) > n {
		parts = append(parts[:n:n], fmt.Sprintf("and %d more", len(parts)-n))
	}
	return strings.Join(parts, ", ")
}
