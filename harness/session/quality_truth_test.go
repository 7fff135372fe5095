package session

import (
	"context"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQualityEqualsSimulatorTruth: the simulator answers the fixture sets
// with 20% deliberately wrong answers and 10% broken JSON, and records which;
// the reported accuracy, json-valid and schema-valid rates must equal that
// truth, request by request.
func TestQualityEqualsSimulatorTruth(t *testing.T) {
	scenarios := map[string]Scenario{
		"extraction": {Name: "extraction", Fixture: "fixtures/extract.jsonl", Structured: true},
		"classify":   {Name: "chat", Fixture: "fixtures/classify.jsonl"},
	}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			cfg := &config.Config{
				Source:    "test",
				Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true}},
				Scenarios: config.Presets(),
				SimSpecs:  map[string]string{"sim": "ttft=1ms,tpot=0s,wrong=0.2,invalid_json=0.1,seed=11"},
			}
			s, err := New(cfg, Run{}, Options{})
			require.NoError(t, err)
			defer s.Close()
			src, err := s.Source(sc)
			require.NoError(t, err)
			conf := cfg.Scenario(sc.Name, "sim")
			conf.Warmup = 0
			samples, err := s.Measure(context.Background(), Cell{Scenario: sc.Name, Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(4)}, Fixture: src}, 200)
			require.NoError(t, err)
			byID := map[string]int{}
			for i, tr := range s.Sim("sim").Truth() {
				byID[tr.ID] = i
			}
			truth := s.Sim("sim").Truth()
			var wrong, broken, bad int
			for _, smp := range samples {
				require.True(t, smp.OK(), smp.Err)
				require.NotNil(t, smp.Quality)
				tr := truth[byID[smp.ID]]
				q := smp.Quality
				if smp.Cold {
					continue
				}
				if tr.Wrong {
					wrong++
				}
				if tr.InvalidJSON {
					broken++
				}
				if tr.Wrong || tr.InvalidJSON {
					bad++
				}
				assert.Equal(t, !tr.Wrong && !tr.InvalidJSON, q.Matched, "case %s: matched (wrong=%v broken=%v) got %q", smp.Case, tr.Wrong, tr.InvalidJSON, q.Got)
				if q.JSONChecked {
					assert.Equal(t, !tr.InvalidJSON, q.JSONValid, "case %s: json valid", smp.Case)
				}
				if q.SchemaChecked {
					// Wrong answers are schema-valid by construction of the
					// fixtures: only broken JSON fails the schema.
					assert.Equal(t, !tr.InvalidJSON, q.SchemaValid, "case %s: schema valid: %s", smp.Case, q.SchemaError)
				}
			}
			st := objective.Judge(samples, conf.Objectives).Stats
			n := float64(st.Attempted)
			t.Logf("n=%d wrong=%d broken=%d accuracy=%.3f json=%.3f schema=%.3f", st.Attempted, wrong, broken,
				st.Quality.AccuracyRate(), st.Quality.JSONValidRate(), st.Quality.SchemaValidRate())
			assert.Greater(t, wrong, 20, "the injected rate shows up")
			assert.Greater(t, broken, 5)
			if sc.Structured {
				assert.InDelta(t, 1-float64(broken)/n, st.Quality.JSONValidRate(), 1e-9)
				assert.InDelta(t, 1-float64(broken)/n, st.Quality.SchemaValidRate(), 1e-9)
			}
			assert.InDelta(t, 1-float64(bad)/n, st.Quality.AccuracyRate(), 1e-9, "accuracy over every response")
			assert.Less(t, st.GoodPct, 1.0, "wrong answers are not good requests")
			assert.InDelta(t, st.Quality.AccuracyRate(), st.GoodPct, 1e-9, "with latency met, good = right")
		})
	}
}
