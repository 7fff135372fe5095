package report

import (
	"io"
	"math"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
)

// LengthTolerance is how far a replayed trace's mean lengths may be from
// what its rows asked before the report warns.
const LengthTolerance = 0.10

// traceLengths writes, under the table, a replayed trace's lengths sent
// beside those its rows asked, warning when one is more than
// LengthTolerance off: a prompt the tokenizer counts otherwise than the
// words it was built of, or answers that stopped before max_tokens (the
// trace's output lengths were then not reproduced). The rates, the
// trace's (what its rows scheduled) beside the achieved, lead the line.
func traceLengths(w io.Writer, v objective.Verdict) {
	t := v.Stats.Trace
	if t.N == 0 {
		return
	}
	o := v.Stats.Open
	line := "trace (%s): sent at %s req/s, the trace's arrival rate at its speedup %s; output tokens %s received of %s asked"
	args := []any{where(v), metric.Num(o.Achieved), metric.Num(o.Planned), metric.Num(t.SentOutput), metric.Num(t.AskedOutput)}
	if t.PromptN > 0 {
		line += ", prompt tokens %s counted of %s asked"
		args = append(args, metric.Num(t.SentPrompt), metric.Num(t.AskedPrompt))
	}
	say(w, line+" (means over %d requests)", append(args, t.N)...)
	for _, l := range []struct {
		what      string
		got, want float64
		n         int
		why       string
	}{
		{"output", t.SentOutput, t.AskedOutput, t.N, "answers ended before max_tokens (a stop the model chose): the trace's output lengths, and the decode load, were not reproduced"},
		{"prompt", t.SentPrompt, t.AskedPrompt, t.PromptN, "the endpoint's tokenizer counts the synthetic prompts otherwise: prefill load is off the trace's"},
	} {
		if l.n > 0 && math.Abs(l.got/l.want-1) > LengthTolerance {
			say(w, "WARNING (%s): %s tokens %s%% off what the trace asked (%s of %s): %s", where(v), l.what,
				metric.Num(100*math.Abs(l.got/l.want-1)), metric.Num(l.got), metric.Num(l.want), l.why)
		}
	}
}
