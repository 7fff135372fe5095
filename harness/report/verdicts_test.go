package report

import (
	"strings"
	"testing"
	"time"

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

// Shards whose windows overlap little are told apart: started apart (the
// advice names a -level-every that fits the longest run) or started
// together and ended apart (no slot would help); a shard late for its
// run is named.
func TestVerdictsShardsApart(t *testing.T) {
	verdict := func(st stats.Stats) objective.Verdict {
		st.Scenario, st.Endpoint, st.Level = "chat", "prod", "concurrency=12"
		return objective.Verdict{Scenario: "chat", Endpoint: "prod", Level: "concurrency=12", Stats: &st}
	}
	var out strings.Builder
	Verdicts(&out, []objective.Verdict{verdict(stats.Stats{Overlap: 0.41, StartSpread: 300 * time.Millisecond, LongestRun: 900 * time.Millisecond})})
	for _, want := range []string{"overlap 41% only: they started 300ms apart", "-level-every of at least 2s (the longest run took 900ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("started apart: output lacks %q:\n%s", want, &out)
		}
	}
	out.Reset()
	Verdicts(&out, []objective.Verdict{verdict(stats.Stats{Overlap: 0.85, StartSpread: 10 * time.Millisecond, LongestRun: 900 * time.Millisecond})})
	if got := out.String(); !strings.Contains(got, "they started together and ended apart") || strings.Contains(got, "-level-every") {
		t.Errorf("ended apart: want the reason and no slot advice:\n%s", got)
	}
	out.Reset()
	Verdicts(&out, []objective.Verdict{verdict(stats.Stats{Overlap: 0.95, StartLag: time.Second, LateShard: "2/3", LongestRun: 900 * time.Millisecond})})
	for _, want := range []string{"shard 2/3 started a run 1s after the instant agreed for it", "-level-every of at least 2s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("late shard: output lacks %q:\n%s", want, &out)
		}
	}
}

// Answers that are JSON only inside a fence are counted invalid; the table
// says how many were, so that "json 0%" is not read as no JSON at all.
func TestVerdictsNameLenientJSON(t *testing.T) {
	st := &stats.Stats{Scenario: "extraction", Endpoint: "prod", Level: "concurrency=1"}
	st.Quality.JSONChecked, st.Quality.JSONLenient = 20, 18
	var out strings.Builder
	Verdicts(&out, []objective.Verdict{{Scenario: "extraction", Endpoint: "prod", Level: "concurrency=1", Stats: st}})
	if want := "json (extraction endpoint=prod concurrency=1): 18 of 20 answers parse as JSON only once a ``` fence"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, &out)
	}
}
