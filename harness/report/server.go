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
			add("server %s p50 %s ms in %s, p95 %s ms in %s (n=%.0f)", h.name, metric.Num(h.b.Estimate(50)*1000), h.b.WithinText(50),
				metric.Num(h.b.Estimate(95)*1000), h.b.WithinText(95), h.b.N())
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
	readings := fmt.Sprintf("%d readings", s.Readings)
	if s.Failed > 0 {
		readings += fmt.Sprintf(", %d failed: %s", s.Failed, strings.Join(s.Errors, "; "))
	}
	if len(parts) == 0 {
		return "no server figure measured (" + readings + ")"
	}
	return strings.Join(parts, ", ") + " (" + readings + ")"
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
	for _, v := range vs {
		s := v.Stats.Server
		if s == nil {
			continue
		}
		for _, n := range s.Notes {
			say(w, "server (%s): %s", where(v), n)
		}
		if s.Foreign() > 0 && !v.Objectives.Has("foreign") {
			say(w, "WARNING (%s): foreign load: %s (exclusive: true fails it)", where(v), s.ForeignText())
		}
	}
}
