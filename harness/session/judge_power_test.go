package session

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
)

// judgePowerTrials is the number of comparisons per condition of
// TestJudgeGatePower; the figures in docs/scenarios.md come from
//
//	go test ./harness/session/ -run 'TestJudgeGatePower$' -judge.trials 200 -v
var judgePowerTrials = flag.Int("judge.trials", 20, "comparisons per condition in TestJudgeGatePower")

// The gate on judged pass rates, in the shape of harness/gate's
// TestGatePower: recordings of the summary scenario, 10 runs of 40
// requests a side, judged by the simulator's judge with no noise; the
// candidate answers wrong 20% of the time instead of 10% — judged pass
// 90% → 80%, a 10-point drop — and must be caught (judge-pass-% a
// regression of the quality family) at least 80% of the time; an
// unchanged candidate (10% and 10%) may raise a quality false alarm in at
// most 1% of comparisons. The judge's cache keeps its requests to the
// first trial's.
func TestJudgeGatePower(t *testing.T) {
	if testing.Short() {
		t.Skip("the gate's power on judged rates: hundreds of runs")
	}
	trials := *judgePowerTrials
	cache := filepath.Join(t.TempDir(), "judge-cache.jsonl")
	side := func(wrong float64, seed int) *judgedSide {
		spec := fmt.Sprintf("ttft=0s,tpot=0s,jitter=0,wrong=%g,seed=%d", wrong, seed)
		s, cfg := judgeSession(t, judgeSetup{spec: spec, judgeSpec: "ttft=0s,tpot=0s,judge", cache: cache})
		src, err := s.Source(summaryJudged)
		require.NoError(t, err)
		return &judgedSide{s: s, cfg: cfg, src: src}
	}
	conds := []struct {
		name       string
		base, cand float64
		want       float64 // the least share caught, or the most alarmed
		unchanged  bool
	}{
		{name: "no change", base: 0.1, cand: 0.1, want: 0.01, unchanged: true},
		{name: "judged pass 90% → 80%", base: 0.1, cand: 0.2, want: 0.80},
	}
	for i, c := range conds {
		t.Run(c.name, func(t *testing.T) {
			base, cand := side(c.base, 100+i), side(c.cand, 200+i)
			hits, example := 0, ""
			for range trials {
				rep, err := gate.GateRequests("base", "new", base.record(t, 10, 40), cand.record(t, 10, 40), gate.Options{})
				require.NoError(t, err)
				hit := judgeRegressed(rep, c.unchanged)
				if hit {
					hits++
					if example == "" {
						example = fmt.Sprint(rep.Regressions)
					}
				}
			}
			rate := float64(hits) / float64(trials)
			t.Logf("%s: %d/%d = %.1f%%", c.name, hits, trials, 100*rate)
			if c.unchanged {
				if most := int(math.Ceil(c.want * float64(trials))); hits > most {
					t.Errorf("%d quality false alarms in %d unchanged comparisons, want ≤ %d; the first: %s", hits, trials, most, example)
				}
				return
			}
			if least := int(math.Ceil(c.want*float64(trials) - 1e-9)); hits < least {
				t.Errorf("caught %d of %d, want ≥ %d (%.0f%%)", hits, trials, least, 100*c.want)
			}
		})
	}
}

// judgeRegressed says whether rep holds what the condition counts: for an
// unchanged candidate any quality regression (a false alarm), else
// judge-pass-% regressing.
func judgeRegressed(rep *gate.Report, anyQuality bool) bool {
	for _, f := range rep.Regressions {
		if f.Family == gate.FamilyQuality && (anyQuality || f.Unit == "judge-pass-%") {
			return true
		}
	}
	return false
}

// judgedSide is one side of the power test: a session whose simulator
// answers wrong at its rate, the fixture walked on run after run.
type judgedSide struct {
	s   *Session
	cfg *config.Config
	src *load.Fixture
}

// record measures runs runs of n requests one at a time (the simulator's wrong answers then fall on the same requests every time: the test repeats exactly), and returns
// their measured samples, judged.
func (js *judgedSide) record(t *testing.T, runs, n int) []sample.Sample {
	t.Helper()
	conf := js.cfg.Scenario("summary", "sim")
	conf.Warmup = 0
	var out []sample.Sample
	for range runs {
		ss, err := js.s.Measure(context.Background(), Cell{Scenario: "summary", Endpoint: js.cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(1)}, Fixture: js.src}, n)
		require.NoError(t, err)
		out = append(out, measured(ss)...)
	}
	return out
}
