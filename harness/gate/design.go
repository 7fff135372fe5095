package gate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Design is a sequential gate's plan for a candidate recorded look by
// look (llmsla bench -against): the candidate's runs of each benchmark at
// each look, cumulative, the last the ceiling, against a base of Base
// runs; and the share of unchanged candidates that stopped at each look
// in the gate's own simulations, from which a plan's expected cost is
// read.
type Design struct {
	Looks []int
	Base  int
	// Unchanged is the share of unchanged candidates (A/A pairs) that
	// stopped at each look, measured (TestGateSequential).
	Unchanged []float64
}

// DefaultDesign is the design docs/gate.md measures: looks after 3, 6, 10
// and 14 runs against a base of 10. Of 200 simulated A/A pairs
// (TestGateSequential -seq.trials 200) 108, 70, 17 and 5 stopped at each
// look: 4.9 runs on average, half the fixed gate's 10.
var DefaultDesign = Design{Looks: []int{3, 6, 10, 14}, Base: 10, Unchanged: []float64{108.0 / 200, 70.0 / 200, 17.0 / 200, 5.0 / 200}}

// Ceiling is the runs of the last look.
func (d Design) Ceiling() int { return d.Looks[len(d.Looks)-1] }

// Fraction is look k's share of the design's runs (k from 0).
func (d Design) Fraction(k int) float64 { return float64(d.Looks[k]) / float64(d.Ceiling()) }

// Added is the runs look k adds to the looks before it.
func (d Design) Added(k int) int {
	if k == 0 {
		return d.Looks[0]
	}
	return d.Looks[k] - d.Looks[k-1]
}

// Expected is the mean of cost(k), the cost of stopping at look k, over
// the looks unchanged candidates stopped at (Unchanged).
func (d Design) Expected(cost func(k int) float64) float64 {
	var e float64
	for k, p := range d.Unchanged {
		e += p * cost(k)
	}
	return e
}

// String is the design as a person reads it: "looks after 3, 6, 10 and
// 14 runs".
func (d Design) String() string {
	s := make([]string, len(d.Looks))
	for i, n := range d.Looks {
		s[i] = fmt.Sprint(n)
	}
	last := len(s) - 1
	if last == 0 {
		return "one look after " + s[0] + " runs"
	}
	return "looks after " + strings.Join(s[:last], ", ") + " and " + s[last] + " runs"
}

// Saved says where a sequential gate stopped, of what the design could
// have sent: "decided unchanged at look 2 of 4: 6 of 14 runs".
// At the last look the gate's verdict is the fixed gate's at the level
// left: "gate PASS at look 4 of 4".
func (s *Sequential) Saved(d Design) string {
	how := "decided " + s.Decision
	if s.Decision != "regressed" && s.Decision != "unchanged" {
		how = "gate " + s.Decision
	}
	return fmt.Sprintf("%s at look %d of %d: %d of %d runs", how, s.Look, s.Looks, d.Looks[s.Look-1], d.Ceiling())
}

// WritePlan writes what the design sends a side beside the fixed gate,
// for each line of a plan of a base of runs runs: the requests a side of
// a candidate recorded look by look against base, expected for an
// unchanged one (the design's measured stopping shares, Unchanged) and
// at most (the ceiling), each run as many requests as base's. The fixed
// gate's candidate has base's runs. Where the fixed gate with base's
// runs flags a change, the design does as often (TestGateSequential:
// 190 against 188 of 200 pairs at the MDE).
func (d Design) WritePlan(w io.Writer, lines []PlanLine, runs int) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	exp := d.Expected(func(k int) float64 { return float64(d.Looks[k]) })
	fmt.Fprintf(tw, "\nunder the sequential rule (llmsla bench -against this run: %s, stopping at the first that decides), a candidate sends a side:\n", d)
	for _, l := range lines {
		perRun := float64(l.Have) / float64(runs)
		fmt.Fprintf(tw, "  %s\t%s\t≈ %.0f requests unchanged (%.1f runs, simulated), %.0f at most (%d runs)\t(the fixed gate: %d, %d runs)\n",
			l.Group, l.Unit, exp*perRun, exp, perRun*float64(d.Ceiling()), d.Ceiling(), l.Have, runs)
	}
	return tw.Flush()
}
