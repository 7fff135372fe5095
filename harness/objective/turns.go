package objective

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// A run of conversations is judged turn by turn as well as whole: a bound
// on ttft (ttft_p95_ms) holds on every turn index apart, each turn's
// percentile over the conversations that reached it, and a turn_ objective
// (turn_ttft_p95_ms: {5: 800}) sets the bound from its turn on, up to the
// next such bound, in place of the plain one — whose check over all turns
// pooled then goes too, since it would hold the later turns to it.

// perTurn are the figures kept turn by turn (stats.Turn), which a turn_
// objective may bound.
var perTurn = []string{"ttft"}

// ParseTurn parses one bound of a turn_ objective, as sla.yaml writes it
// (turn_ttft_p95_ms: {5: 800}): key, the turn it bounds from and the bound.
func ParseTurn(key string, turn int, value float64) (Threshold, error) {
	base, ok := strings.CutPrefix(key, "turn_")
	th, err := Parse(base, value)
	if err != nil && ok {
		if _, known := metric.ParseKey(base); known {
			return Threshold{}, fmt.Errorf("%s.%d: %s", key, turn, strings.TrimPrefix(err.Error(), base+": "))
		}
	}
	if !ok || err != nil || th.Kind != metric.Latency || !slices.Contains(perTurn, th.Name) {
		return Threshold{}, fmt.Errorf("%s: not a per-turn objective (allowed: turn_ttft_p<50|90|95|99>_ms: {turn: ms})", key)
	}
	if turn < 1 || turn > sample.MaxTurns {
		return Threshold{}, fmt.Errorf("%s.%d: not a turn (want a whole number from 1 to %d, e.g. {5: 800})", key, turn, sample.MaxTurns)
	}
	th.Turn = turn
	return th, nil
}

// Label names the threshold for people: its figure, and for a turn_
// objective the turns it bounds ("ttft p95 from turn 5").
func (th Threshold) Label() string {
	if th.Turn > 0 {
		return fmt.Sprintf("%s from turn %d", th.Fig.Label(), th.Turn)
	}
	return th.Fig.Label()
}

// needs is what a run must have for th to be measured.
func (th Threshold) needs() string {
	if th.Turn > 0 {
		return fmt.Sprintf("conversations of %d turns or more (a fixture whose cases have turns:, at a sessions: or session_rate: level)", th.Turn)
	}
	return th.Needs
}

// label names the figure a violation is of: a turn judged apart is named.
func (v Violation) label() string {
	if v.Turn > 0 {
		return fmt.Sprintf("%s at turn %d", v.Threshold.Fig.Label(), v.Turn)
	}
	return v.Threshold.Label()
}

// turnBound is the threshold that bounds figure f on turn t: the turn_
// objective of the latest turn at or before t, else f's own; ok is false
// when there is none.
func (o Objectives) turnBound(f metric.Fig, t int) (th Threshold, ok bool) {
	for _, x := range o {
		if x.Fig == f && x.Turn <= t && (!ok || x.Turn > th.Turn) {
			th, ok = x, true
		}
	}
	return th, ok
}

// replacedByTurns reports whether th, a plain bound, leaves its run's
// turns to turn_ objectives of the same figure, so that its check over
// every turn pooled would hold the later turns to the plain bound.
func (o Objectives) replacedByTurns(th Threshold) bool {
	return slices.ContainsFunc(o, func(x Threshold) bool { return x.Turn > 0 && x.Fig == th.Fig })
}

// boundsTurn reports whether th bounds a request of turn t (0: a request
// that is no conversation's turn), for goodput.
func (o Objectives) boundsTurn(th Threshold, t int) bool {
	if t == 0 || !slices.Contains(perTurn, th.Name) {
		return th.Turn == 0
	}
	b, _ := o.turnBound(th.Fig, t)
	return b == th
}

// checkTurns judges each turn index of st's conversations against the
// bound of its turn, and says a turn_ objective that no conversation
// reached was not measured.
func (o Objectives) checkTurns(st *stats.Stats) []Violation {
	var out []Violation
	for _, th := range o {
		if !slices.Contains(perTurn, th.Name) || th.Kind != metric.Latency {
			continue
		}
		reached := false
		for _, tn := range st.Conv.Turns {
			if b, _ := o.turnBound(th.Fig, tn.Index); b != th || tn.N == 0 {
				continue
			}
			reached = true
			got, _ := tn.TTFT.At(th.P)
			if math.IsNaN(got) || got > th.Value {
				out = append(out, Violation{Threshold: th, Got: got, N: tn.TTFT.N, Turn: tn.Index})
			}
		}
		if th.Turn > 0 && !reached {
			out = append(out, Violation{Threshold: th, Got: math.NaN()})
		}
	}
	return out
}
