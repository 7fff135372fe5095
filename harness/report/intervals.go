package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmsla/llmsla/harness/objective"
)

// The intervals of a verdict's figures, beside the figures: an objective
// met by a figure whose interval straddles its threshold reads as
// undecided, so that a p95 of 598 ms against 600 ms and one of 450 ms do
// not read alike.

// IntervalLines are one line per level the SLA judges, its objectives'
// figures with their intervals and where each stands: "intervals (chat
// endpoint=prod concurrency=5, 95%): ttft p95 450 ms [420, 480] met;
// accuracy 88% [80%, 93%] undecided" (the objectives' line above says
// what each is checked against).
func IntervalLines(vs []objective.Verdict) []string {
	var out []string
	for _, v := range vs {
		if v.Search() != "" || len(v.Decisions) == 0 {
			continue
		}
		parts := make([]string, len(v.Decisions))
		conf := objective.Confidence
		for i, d := range v.Decisions {
			parts[i] = d.Short()
			if d.State != objective.Unmeasured {
				conf = d.Interval.Conf
			}
		}
		out = append(out, fmt.Sprintf("intervals (%s, %s): %s", where(v), pctText(conf), strings.Join(parts, "; ")))
	}
	return out
}

func pctText(f float64) string { return fmt.Sprintf("%g%%", math.Round(f*1000)/10) }

// SummaryInterval is one objective's interval in the JSON summary: its
// figure, the bounds (null where unbounded), the level and where it
// stands (met, missed, undecided, unmeasured).
type SummaryInterval struct {
	Objective  string   `json:"objective"`
	Got        *float64 `json:"got"`
	Lo         *float64 `json:"lo"`
	Hi         *float64 `json:"hi"`
	Confidence float64  `json:"confidence"`
	N          int      `json:"n"`
	Sequential bool     `json:"sequential"`
	State      string   `json:"state"`
}

func summaryIntervals(v objective.Verdict) []SummaryInterval {
	out := []SummaryInterval{}
	finite := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	for _, d := range v.Decisions {
		s := SummaryInterval{Objective: d.Threshold.Key(), Got: finite(d.Got), Confidence: d.Interval.Conf, N: d.Interval.N,
			Sequential: d.Interval.Sequential, State: d.State.String()}
		if d.State != objective.Unmeasured {
			s.Lo, s.Hi = finite(d.Interval.Lo), finite(d.Interval.Hi)
		}
		out = append(out, s)
	}
	return out
}

// StoppedLines say of each level that could stop once decided (stop:
// decided) how many measured requests it sent of its ceiling, and what
// stopping saved: "stopped (chat endpoint=prod concurrency=5): decided
// after 60 of 200 requests, 140 saved".
func StoppedLines(vs []objective.Verdict) []string {
	var out []string
	for _, v := range vs {
		if v.Ceiling == 0 {
			continue
		}
		saved := v.Saved()
		switch {
		case v.RunsCeiling > 0 && saved > 0:
			out = append(out, fmt.Sprintf("stopped (%s): decided after %d of %d runs, %d of %d requests, %d saved",
				where(v), v.Runs, v.RunsCeiling, v.Stats.Attempted, v.Ceiling, saved))
		case v.RunsCeiling > 0:
			out = append(out, fmt.Sprintf("stopped (%s): not decided before its count, %s, %d requests", where(v), Plural(v.RunsCeiling, "run", "runs"), v.Ceiling))
		case saved > 0:
			out = append(out, fmt.Sprintf("stopped (%s): decided after %d of %d requests, %d saved", where(v), v.Stats.Attempted, v.Ceiling, saved))
		default:
			out = append(out, fmt.Sprintf("stopped (%s): not decided before its count, %d requests", where(v), v.Ceiling))
		}
	}
	return out
}
