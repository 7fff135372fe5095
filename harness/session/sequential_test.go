package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStopDecided: a level of stop: decided whose objectives are far from
// its endpoint's figures stops once they are decided — after every
// fixture case is asked, well before its count — and its verdict says
// what it used and saved, with the sequence's intervals; the same level
// without it sends its count. What the simulator received is what the
// samples say was sent.
func TestStopDecided(t *testing.T) {
	const ceiling = 400
	for name, stop := range map[string]string{"decided": "decided", "count": "count"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sla.yaml")
			yaml := "endpoints:\n  a: {sim: \"ttft=2ms,tpot=100us,jitter=0.2,tokens=4\"}\nscenarios:\n  chat:\n    concurrency: [2]\n    stop: " + stop +
				"\n    sla: {ttft_p95_ms: 600, error_rate_max: 0.2}\n"
			require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
			cfg, err := config.LoadFile(path)
			require.NoError(t, err)
			s, err := New(cfg, Run{PerRun: ceiling}, Options{})
			require.NoError(t, err)
			defer s.Close()
			sc := shippedScenario("chat")
			fix, err := s.Source(sc)
			require.NoError(t, err)
			ep := cfg.Endpoints[0]
			set := cfg.Scenario("chat", ep.Name)
			c := Cell{Scenario: "chat", Endpoint: ep, Settings: set, Level: set.Levels()[0], Fixture: fix}
			plan, err := s.Plan([]Scenario{sc}, map[string]*load.Fixture{"chat": fix}, 1, ceiling)
			require.NoError(t, err)
			if stop == "decided" {
				// The plan: as few as the p95 needs (78 requests all under
				// it), at worst the count, and which objective needs most.
				require.Len(t, plan.Rows, 1)
				assert.Equal(t, 78, plan.Rows[0].Decided)
				assert.Equal(t, ceiling, plan.Rows[0].Measured)
				assert.Equal(t, "ttft p95 ≤ 600 ms needs 78", plan.Rows[0].Needs)
			}
			samples, err := s.Measure(context.Background(), c, ceiling)
			require.NoError(t, err)
			v := objective.Judge(samples, cfg.Objectives("chat", ep.Name))
			require.True(t, v.OK(), v.Violations)
			if stop == "count" {
				assert.Equal(t, ceiling, v.Stats.Attempted)
				assert.Zero(t, v.Ceiling)
				return
			}
			n := v.Stats.Attempted
			t.Logf("decided after %d of %d: %v", n, ceiling, v.Decisions)
			assert.GreaterOrEqual(t, n, fix.Len(), "the floor: every fixture case asked")
			assert.Less(t, n, ceiling/2, "decided well before the count")
			assert.Equal(t, ceiling, v.Ceiling)
			assert.Equal(t, ceiling-n, v.Saved())
			for _, d := range v.Decisions {
				assert.True(t, d.Interval.Sequential, d.String())
				assert.Equal(t, objective.Met, d.State, d.String())
			}
			assert.Len(t, s.Sim("a").Truth(), len(samples), "the simulator received what the samples say")
		})
	}
}
