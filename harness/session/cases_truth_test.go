package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCasePassTruth: on the simulator with wrong answers at random, each
// of the fixture's cases asked 3 times, case_pass_min: {k: 3, pass: 3}
// names as failing exactly the cases the simulator answered wrong at
// least once, as always wrong those it answered wrong every time, and
// each flaky one's count of right tries as the simulator's.
func TestCasePassTruth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sla.yaml")
	yaml := "endpoints:\n  a: {sim: \"ttft=1ms,tpot=100us,jitter=0,tokens=4,wrong=0.3,seed=7\"}\nscenarios:\n  chat:\n    concurrency: [1]\n" +
		"    sla: {accuracy_min: 0, case_pass_min: {k: 3, pass: 3}}\n"
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	cfg, err := config.LoadFile(path)
	require.NoError(t, err)
	s, err := New(cfg, Run{}, Options{})
	require.NoError(t, err)
	defer s.Close()
	fix, err := s.Source(shippedScenario("chat"))
	require.NoError(t, err)
	ep := cfg.Endpoints[0]
	set := cfg.Scenario("chat", ep.Name)
	c := Cell{Scenario: "chat", Endpoint: ep, Settings: set, Level: set.Levels()[0], Fixture: fix}
	samples, err := s.Measure(context.Background(), c, 3*fix.Len())
	require.NoError(t, err)

	wrongByID := map[string]bool{}
	for _, tr := range s.Sim("a").Truth() {
		wrongByID[tr.ID] = tr.Wrong
	}
	wrong, tries := map[string]int{}, map[string]int{}
	for _, smp := range samples {
		if smp.Warmup || smp.Cold {
			continue
		}
		require.Contains(t, wrongByID, smp.ID, "every measured request reached the simulator")
		tries[smp.Case]++
		if wrongByID[smp.ID] {
			wrong[smp.Case]++
		}
	}
	var always, flaky []string
	for id, n := range tries {
		require.Equal(t, 3, n, "case %s asked 3 times", id)
		switch w := wrong[id]; {
		case w == 3:
			always = append(always, id+" (0 of 3)")
		case w > 0:
			flaky = append(flaky, fmt.Sprintf("%s (passed %d of 3)", id, 3-w))
		}
	}
	slices.Sort(always)
	slices.Sort(flaky)
	require.NotEmpty(t, flaky, "at 30%% wrong, some case is flaky")

	vs := objective.Evaluate(samples, cfg.Objectives)
	require.Len(t, vs, 1)
	var got string
	for _, v := range vs[0].Violations {
		if v.Threshold.K > 0 {
			got = v.String()
		}
	}
	want := fmt.Sprintf("case pass: %d of %d cases miss every case passes 3 of 3 tries (", len(always)+len(flaky), len(tries))
	var parts []string
	if len(always) > 0 {
		parts = append(parts, "always wrong: "+list(always))
	}
	parts = append(parts, "flaky: "+list(flaky))
	assert.Equal(t, want+strings.Join(parts, "; ")+")", got)
}

func list(ids []string) string {
	if len(ids) > 10 {
		return fmt.Sprintf("%s and %d more", strings.Join(ids[:10], ", "), len(ids)-10)
	}
	return strings.Join(ids, ", ")
}
