package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepeatsDecideTogether: a level of stop: decided sent as -count 20
// runs of 20 (a benchmark's repetitions), whose p95 objective is far from
// its endpoint's, decides on its runs pooled — no run alone reaches the 78
// requests the p95 needs — and the runs left send nothing, probes
// included: 4 runs, 80 requests, where each run deciding alone sends all
// 400. The plan says the same before anything is sent, and what the
// simulator received is what the samples say; the samples alone give the
// verdict its runs and ceiling.
func TestRepeatsDecideTogether(t *testing.T) {
	const count, n = 20, 20
	s, c, plan := repeatsSession(t, "ttft_p95_ms: 600, error_rate_max: 0.2", count, n)
	require.Len(t, plan.Rows, 1)
	row := plan.Rows[0]
	assert.Equal(t, count*n, row.Measured, "the worst case: every run")
	assert.Equal(t, 4*n, row.Decided, "at the least: the 78 requests the p95 needs, in whole runs")
	assert.Equal(t, fmt.Sprintf("ttft p95 ≤ 600 ms needs 78: 4 of %d runs a level", count), row.Needs)

	runs := s.Repeat(c, count)
	var all []sample.Sample
	sent := 0
	for range count {
		done := runs.Done()
		probe, err := runs.Probe(context.Background())
		require.NoError(t, err)
		if done {
			assert.Empty(t, probe, "the probe of a run left once decided sends nothing")
		}
		all = append(all, probe...)
		got, err := runs.Measure(context.Background(), n)
		require.NoError(t, err)
		if len(got) > 0 {
			sent++
		}
		all = append(all, got...)
	}
	assert.True(t, runs.Done())
	v := objective.Judge(all, s.Config().Objectives("chat", c.Endpoint.Name))
	require.True(t, v.OK(), v.Violations)
	assert.Equal(t, sent*n, v.Stats.Attempted, "each run is sent whole")
	if slow := slower(all, 600*time.Millisecond); slow == 0 {
		// Every request under the objective: decided as early as it
		// can be, which is what the plan said.
		assert.Equal(t, row.Decided, v.Stats.Attempted, "the run sends what the plan says at the least")
	} else {
		t.Logf("%d requests over 600 ms (a busy machine): decided later, after %d runs", slow, sent)
	}
	assert.LessOrEqual(t, sent, count/2, "decided well before the count")
	assert.Equal(t, sent, v.Runs)
	assert.Equal(t, count, v.RunsCeiling)
	assert.Equal(t, count*n, v.Ceiling)
	assert.Equal(t, count*n-sent*n, v.Saved())
	assert.Contains(t, report.StoppedLines([]objective.Verdict{v}),
		fmt.Sprintf("stopped (chat endpoint=a concurrency=2): decided after %d of %d runs, %d of %d requests, %d saved", sent, count, sent*n, count*n, count*n-sent*n))
	assert.Len(t, s.Sim("a").Truth(), len(all), "the simulator received what the samples say, no probe of a run left")
}

// TestRepeatsThatCannotStop: a level whose objective needs more requests
// than its runs together send (an error rate of 1%: 323 clean requests,
// of 10 runs of 20) sends every run, and the plan says it cannot stop.
func TestRepeatsThatCannotStop(t *testing.T) {
	const count, n = 10, 20
	s, c, plan := repeatsSession(t, "ttft_p95_ms: 600, error_rate_max: 0.01", count, n)
	require.Len(t, plan.Rows, 1)
	row := plan.Rows[0]
	assert.Equal(t, row.Measured, row.Decided, "it sends its count")
	assert.Equal(t, "error rate ≤ 1% needs 323, more than a level's 200 in 10 runs of 20", row.Needs)
	runs := s.Repeat(c, count)
	var all []sample.Sample
	for range count {
		got, err := runs.Measure(context.Background(), n)
		require.NoError(t, err)
		all = append(all, got...)
	}
	v := objective.Judge(all, s.Config().Objectives("chat", c.Endpoint.Name))
	assert.Equal(t, count*n, v.Stats.Attempted)
	assert.Equal(t, count, v.Runs)
	assert.Zero(t, v.Saved())
	assert.Contains(t, report.StoppedLines([]objective.Verdict{v}), "stopped (chat endpoint=a concurrency=2): not decided before its count, 10 runs, 200 requests")
}

// TestRepeatsOfAShardDecideAlone: the shards of a run send each level in
// the same slot, so a shard's runs do not decide together (a shard that
// skipped runs would send its next level beside the others' runs of this
// one): each of its runs decides on its own, as the plan says.
func TestRepeatsOfAShardDecideAlone(t *testing.T) {
	const count, n = 10, 20
	shard, err := load.ParseShard("1/2")
	require.NoError(t, err)
	s, c, plan := repeatsSessionOf(t, Run{PerRun: n, Shard: shard}, "ttft_p95_ms: 600, error_rate_max: 0.2", count, n)
	require.Len(t, plan.Rows, 1)
	assert.Equal(t, "ttft p95 ≤ 600 ms needs 78", plan.Rows[0].Needs)
	assert.Equal(t, plan.Rows[0].Measured, plan.Rows[0].Decided, "no run of 10 (a shard's share of 20) reaches 78")
	runs := s.Repeat(c, count)
	var all []sample.Sample
	for range count {
		got, err := runs.Measure(context.Background(), n)
		require.NoError(t, err)
		all = append(all, got...)
	}
	assert.False(t, runs.Done())
	v := objective.Judge(all, s.Config().Objectives("chat", c.Endpoint.Name))
	assert.Equal(t, count*n/2, v.Stats.Attempted, "every run sent, the shard's share")
	assert.Zero(t, v.RunsCeiling, "no run of a series")
}

// repeatsSession is a session of one simulated endpoint, fast and steady,
// whose chat scenario stops once decided against sla, one level of
// concurrency 2, and its plan of count runs of n.
func repeatsSession(t *testing.T, sla string, count, n int) (*Session, Cell, *Plan) {
	return repeatsSessionOf(t, Run{PerRun: n}, sla, count, n)
}

func repeatsSessionOf(t *testing.T, run Run, sla string, count, n int) (*Session, Cell, *Plan) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sla.yaml")
	yaml := "endpoints:\n  a: {sim: \"ttft=2ms,tpot=100us,jitter=0.2,tokens=4\"}\nscenarios:\n  chat:\n    concurrency: [2]\n    stop: decided\n    sla: {" + sla + "}\n"
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	cfg, err := config.LoadFile(path)
	require.NoError(t, err)
	s, err := New(cfg, run, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	sc := shippedScenario("chat")
	fix, err := s.Source(sc)
	require.NoError(t, err)
	require.LessOrEqual(t, fix.Len(), 78, "the fixture's cases, the floor, are fewer than the p95 needs")
	ep := cfg.Endpoints[0]
	set := cfg.Scenario("chat", ep.Name)
	plan, err := s.Plan([]Scenario{sc}, map[string]*load.Fixture{"chat": fix}, count, n)
	require.NoError(t, err)
	return s, Cell{Scenario: "chat", Endpoint: ep, Settings: set, Level: set.Levels()[0], Fixture: fix}, plan
}

// slower counts the measured samples whose TTFT is over d.
func slower(samples []sample.Sample, d time.Duration) int {
	k := 0
	for _, s := range samples {
		if !s.Warmup && !s.Cold && (s.TTFT == 0 || s.TTFT > d) {
			k++
		}
	}
	return k
}
