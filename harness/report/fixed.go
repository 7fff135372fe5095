package report

import (
	"io"
	"strconv"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
)

// FixedSlack is how far an answer asked for exactly N tokens may stray
// before the level says the server did not hold the length: a server
// counting its end token, or one chunk of several tokens, moves a count by
// a token or two, not by a tenth.
const FixedSlack = 0.1

// writeFixed warns of the levels whose answers were asked for a fixed
// length (output_tokens: {fixed: N}) and came back other lengths: their
// figures are not of the length asked, and the server likely ignored
// ignore_eos or min_tokens.
func writeFixed(w io.Writer, vs []objective.Verdict) {
	for _, v := range vs {
		want, ok := v.Level.Get("output_tokens")
		n, err := strconv.Atoi(want)
		o := v.Stats.OutputLen
		if !ok || err != nil || n <= 0 || o.N == 0 {
			continue
		}
		lo, hi := float64(n)*(1-FixedSlack), float64(n)*(1+FixedSlack)
		if o.Min >= lo && o.Max <= hi {
			continue
		}
		say(w, "WARNING (%s): answers asked for exactly %d tokens came back %s–%s (mean %s, n=%d): the server did not hold the length (does its kind take min_tokens or ignore_eos?), and these figures are of the lengths it sent",
			where(v), n, metric.Num(o.Min), metric.Num(o.Max), metric.Num(o.Mean), o.N)
	}
}
