package gate

import (
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/inference"
)

// A latency percentile whose minimal detectable effect is n/a was tested,
// but no change of it, however large, would have been flagged with 80%
// probability at these sample sizes: the rank tests saturate (ranks only
// know that the new side's requests are all at the top), and drift widens
// them. Its "unchanged" says nothing. A blind figure the user asked for is
// not a pass, so the verdict is BLIND (exit 2: record more requests or
// runs) unless Options.AllowBlind says the figure was not asked for; the
// headline names blind figures either way. A figure is asked for when an
// objective of its scenario × endpoint bounds it (Options.Objective: the
// SLA file's ttft_p95_ms asks for ttft-p95-ms), or — without that lookup —
// whenever the gate judges it on requests. Quality figures that are blind are
// warned of, as before: their tests are exact, and a proportion at 100%
// on few cases has nothing to lose that a few more requests would show.

// Verdict is a report's outcome in a word.
type Verdict string

const (
	Pass  Verdict = "PASS"  // nothing regressed, and every figure asked for could be seen
	Fail  Verdict = "FAIL"  // a figure regressed or vanished
	Blind Verdict = "BLIND" // nothing regressed, but a latency asked for could not be judged
)

// Verdict is FAIL when a figure regressed or vanished, else BLIND when a
// latency percentile was blind (Report.Blind), else PASS. The CLI exits
// 1, 2 and 0.
func (r *Report) Verdict() Verdict {
	switch {
	case r.Failed():
		return Fail
	case len(r.Blind) > 0:
		return Blind
	}
	return Pass
}

// setBlind sets the report's blind latency percentiles apart, those allow
// matches among them and those no objective bounds (bound nil: all are
// bound), and warns of every blind test.
func setBlind(rep *Report, allow []string, bound func(group, unit string) bool) {
	var blind []string
	for _, s := range rep.Sensitivity {
		for _, m := range s.MDE {
			if !math.IsInf(m.Change, 1) {
				continue
			}
			blind = append(blind, s.Group+" "+m.Unit)
			if !m.Relative {
				continue // a proportion: warned of only
			}
			f := Finding{Benchmark: s.Group, Unit: m.Unit, Family: FamilyLatency, N1: s.Requests[0], N2: s.Requests[1], Requests: true}
			switch {
			case matchesAny(allow, m.Unit):
				rep.BlindAllowed = append(rep.BlindAllowed, f)
			case bound != nil && !bound(s.Group, m.Unit):
				rep.BlindUnbound = append(rep.BlindUnbound, f)
			default:
				rep.Blind = append(rep.Blind, f)
			}
		}
	}
	if len(blind) == 0 {
		return
	}
	how := "record more requests or runs (llmsla bench or ab: -n, -count)"
	if len(rep.Blind) > 0 {
		how += ", or pass -allow-blind UNIT for a latency you do not need judged"
	}
	rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: no change, however large, is flagged with %.0f%% probability at these sample sizes (the rank tests saturate, and drift widens them): %s",
		strings.Join(blind, ", "), 100*inference.Power, how))
}

func matchesAny(globs []string, unit string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, unit); ok {
			return true
		}
	}
	return false
}

// blindNote is what the headline says of the blind figures: "" when none.
func (r *Report) blindNote() string {
	var parts []string
	if len(r.Blind) > 0 {
		parts = append(parts, fmt.Sprintf("not judged, blind at these sample sizes: %s", names(r.Blind, 4)))
	}
	if len(r.BlindAllowed) > 0 {
		parts = append(parts, fmt.Sprintf("blind, allowed by -allow-blind: %s", names(r.BlindAllowed, 4)))
	}
	if len(r.BlindUnbound) > 0 {
		parts = append(parts, fmt.Sprintf("blind, no objective bounds them: %s", names(r.BlindUnbound, 4)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// names lists at most n findings as "group unit", and how many more.
func names(fs []Finding, n int) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Benchmark + " " + f.Unit
	}
	return firstOf(parts, n)
}
