package report

import (
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/stats"
)

// A run that asked part of its fixture is "ok" for the cases it asked
// only: the table says so under it unless coverage_min requires them all.
func TestVerdictsNameUncoveredRuns(t *testing.T) {
	verdict := func(scenario string, asked int, keys map[string]float64) objective.Verdict {
		obj, err := objective.ParseMap(keys)
		if err != nil {
			t.Fatal(err)
		}
		st := &stats.Stats{Scenario: scenario, Endpoint: "slow", Level: "concurrency=1", FixtureCases: 36, Asked: asked}
		return objective.Verdict{Scenario: scenario, Endpoint: "slow", Level: "concurrency=1", Objectives: obj, Stats: st}
	}
	var out strings.Builder
	Verdicts(&out, []objective.Verdict{
		verdict("batch", 10, map[string]float64{"accuracy_min": 0.9}),
		verdict("chat", 36, map[string]float64{"accuracy_min": 0.9}),
		verdict("summary", 10, map[string]float64{"coverage_min": 0.2}),
	})
	got := out.String()
	if want := "coverage (batch endpoint=slow): 10 of 36 fixture cases asked, not required"; !strings.Contains(got, want) {
		t.Errorf("output lacks %q:\n%s", want, got)
	}
	for _, not := range []string{"coverage (chat", "coverage (summary"} {
		if strings.Contains(got, not) {
			t.Errorf("output has %q (every case asked, or coverage required):\n%s", not, got)
		}
	}
}
