package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/stats"
)

// Line is a one-line summary of a run for logs.
func Line(st *stats.Stats) string {
	var b strings.Builder
	num := metric.Num
	tok := math.NaN()
	if st.Wall > 0 {
		tok = st.OutTokPerSec
	}
	fmt.Fprintf(&b, "n=%d ttft p50/p95 %s/%s ms, total p50/p95 %s/%s ms, tpot p50 %s ms, %s out-tok/s, errors %d",
		st.Attempted, num(st.TTFT.P50), num(st.TTFT.P95), num(st.Total.P50), num(st.Total.P95), num(st.TPOT.P50),
		num(tok), st.Failed)
	if st.Failed > 0 {
		fmt.Fprintf(&b, " (%s)", st.ErrorKinds())
	}
	if q := st.Quality; q.Responses > 0 {
		fmt.Fprintf(&b, ", json %s schema %s accuracy %s", metric.Pct(q.JSONValidRate()), metric.Pct(q.SchemaValidRate()), metric.Pct(q.AccuracyRate()))
	}
	if q := st.Quality; q.ToolChecked > 0 {
		fmt.Fprintf(&b, ", tool valid %s match %s, ttftool p50/p95 %s/%s ms", metric.Pct(q.ToolValidRate()), metric.Pct(q.ToolMatchRate()),
			num(st.Tools.TTFTool.P50), num(st.Tools.TTFTool.P95))
	}
	if t := st.Tools; t.Loops > 0 {
		fmt.Fprintf(&b, ", %d agent loops (%d unfinished) of up to %s steps, agent total p95 %s ms", t.Loops, t.Unfinished, num(t.Steps.Max), num(t.AgentTotal.P95))
	}
	if st.FixtureCases > 0 {
		fmt.Fprintf(&b, ", %d of %d cases", len(st.Cases), st.FixtureCases)
	}
	if st.Attempted > 0 {
		fmt.Fprintf(&b, ", good %s", metric.Pct(st.GoodPct))
	}
	if t := st.Tokens; t.Checked > 0 {
		fmt.Fprintf(&b, ", tokens disagree %s (%d of %d)", metric.Pct(t.Rate()), t.Disagree, t.Checked)
	}
	if st.Cold != nil {
		fmt.Fprintf(&b, "; cold %s", coldLine(st.Cold))
	}
	return b.String()
}
