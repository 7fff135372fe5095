package report

import (
	"encoding/json"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/stats"
)

// Summary is a run's verdicts as one JSON document, for a program to read
// beside the people's table: every level's figures in the metric table's
// benchmark units (null when not measured), the means and medians beside
// the percentiles, what it was checked against and what it missed.
type Summary struct {
	Exit   int            `json:"exit"`
	Run    RunInfo        `json:"run"`
	Levels []SummaryLevel `json:"levels"`
}

// SummaryLevel is one scenario × endpoint × level.
type SummaryLevel struct {
	Scenario   string              `json:"scenario"`
	Endpoint   string              `json:"endpoint"`
	Level      string              `json:"level"`
	N          int                 `json:"n"`
	Verdict    string              `json:"verdict"`
	Figures    map[string]*float64 `json:"figures"`
	Mean       map[string]*float64 `json:"mean_ms"`
	Median     map[string]*float64 `json:"median_ms"`
	Objectives []string            `json:"objectives"`
	Violations []string            `json:"violations"`
	Intervals  []SummaryInterval   `json:"intervals"`
	// Ceiling is what a level that stopped once decided could have sent
	// (N is what it did); omitted for a level that sends its count.
	Ceiling int `json:"ceiling,omitempty"`
	// Runs and RunsCeiling are, for a level whose -count runs decided
	// together, the runs it sent and could have sent.
	Runs        int `json:"runs,omitempty"`
	RunsCeiling int `json:"runs_ceiling,omitempty"`
	// Cases are the fixture's cases asked at the level, each with its
	// tries that passed and failed (case_pass_min reads them pooled).
	Cases []SummaryCase `json:"cases,omitempty"`
}

// SummaryCase is one fixture case's tries at a level.
type SummaryCase struct {
	ID     string `json:"id"`
	Asked  int    `json:"asked"`
	Passed int    `json:"passed"`
	Failed int    `json:"failed"`
}

func summaryCases(st *stats.Stats) []SummaryCase {
	var out []SummaryCase
	for _, c := range st.Cases {
		out = append(out, SummaryCase{ID: c.ID, Asked: c.Asked, Passed: c.Passed, Failed: c.Failed})
	}
	slices.SortFunc(out, func(a, b SummaryCase) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// WriteSummary writes vs as a Summary, with the run's exit code.
func WriteSummary(w io.Writer, vs []objective.Verdict, run RunInfo, exit int) error {
	doc := Summary{Exit: exit, Run: run, Levels: make([]SummaryLevel, 0, len(vs))}
	for _, v := range vs {
		st := v.Stats
		l := SummaryLevel{Scenario: v.Scenario, Endpoint: v.Endpoint, Level: string(v.Level), N: st.Attempted,
			Verdict: verdictWord(v), Figures: map[string]*float64{},
			Mean: dists(st, func(s stats.Summary) float64 { return s.Mean }), Median: dists(st, func(s stats.Summary) float64 { return s.P50 }),
			Objectives: []string{}, Violations: []string{}, Intervals: summaryIntervals(v), Ceiling: v.Ceiling, Runs: v.Runs, RunsCeiling: v.RunsCeiling, Cases: summaryCases(st)}
		for _, u := range metric.Units() {
			if x, ok := u.Bench(st); ok {
				l.Figures[u.Unit()] = &x
			} else {
				l.Figures[u.Unit()] = nil
			}
		}
		for _, th := range v.Objectives {
			l.Objectives = append(l.Objectives, th.String())
		}
		for _, viol := range v.Violations {
			l.Violations = append(l.Violations, viol.String())
		}
		doc.Levels = append(doc.Levels, l)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(escape.JSON(b), '\n'))
	return err
}

// dists reads one statistic of every latency distribution of st, null
// where the distribution is empty.
func dists(st *stats.Stats, of func(stats.Summary) float64) map[string]*float64 {
	out := map[string]*float64{}
	for _, m := range metric.Table {
		if m.Kind != metric.Latency || m.Dist == nil {
			continue
		}
		d := m.Dist(st)
		if x := of(d); d.N > 0 && !math.IsNaN(x) && !math.IsInf(x, 0) {
			out[m.Name] = &x
		} else {
			out[m.Name] = nil
		}
	}
	return out
}
