package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
)

// Conversations writes what a level of conversations adds under the
// verdict table: how many conversations, how they ended and their total
// time; TTFT turn by turn with the history each turn was sent with; the
// fit of TTFT against the history's tokens; and a warning when the client
// sent turns late after their think times.
func Conversations(w io.Writer, vs []objective.Verdict) {
	num := metric.Num
	for _, v := range vs {
		c := v.Stats.Conv
		if c.Sessions == 0 {
			continue
		}
		line := fmt.Sprintf("conversations (%s): %d (%d complete, %d ended by a failed turn, %d cut short by the run's count or duration); session total p50/p95 %s/%s ms (n=%d)",
			where(v), c.Sessions, c.Complete, c.Failed, c.Cut, num(c.Total.P50), num(c.Total.P95), c.Total.N)
		if l := c.ThinkLag; l.N > 0 {
			line += fmt.Sprintf("; think lag p95/max %s/%s ms", num(l.P95), num(l.Max))
		}
		say(w, "%s", line)
		turns := make([]string, 0, len(c.Turns))
		for _, tn := range c.Turns {
			turns = append(turns, fmt.Sprintf("%d: %s/%s ms (n=%d, %s tokens)", tn.Index, num(tn.TTFT.P50), num(tn.TTFT.P95), tn.N, num(tn.PromptTokens.Mean)))
		}
		say(w, "  ttft p50/p95 by turn: %s", strings.Join(turns, " · "))
		if f := c.History; !math.IsNaN(f.B) {
			op, slope := "+", f.PerKTok()
			if slope < 0 {
				op, slope = "−", -slope
			}
			say(w, "  history: ttft = %s ms %s %s ms per 1k tokens of history (± %s, n=%d)", num(f.A), op, num(slope), num(1000*f.BErr), f.N)
		}
		if l := c.ThinkLag; l.N > 0 {
			if bound := math.Max(LagBound, LagShare*v.Stats.TTFT.P50); l.P95 > bound {
				say(w, "WARNING (%s): the client sent turns late after their think times: think lag p95 %s ms > %s ms (1 ms or 5%% of ttft p50); read it as a busy client, not a slow server",
					where(v), num(l.P95), num(bound))
			}
		}
	}
}
