package objective

import (
	"fmt"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/stretchr/testify/assert"
)

// TestCeilingOfRepetitions: the samples alone say what a level could
// have sent. Runs that decide alone each carry their ceiling; runs that
// decided together (reps) lack the runs left, which the level could have
// sent too: as many of the largest ceiling as its series lacks. Two
// recordings of such a level pooled hold two series.
func TestCeilingOfRepetitions(t *testing.T) {
	now := time.Now()
	// runs of n requests each: id prefix, how many runs, of reps (0: alone).
	mk := func(series string, runs, reps, n int) []sample.Sample {
		var out []sample.Sample
		for r := 1; r <= runs; r++ {
			for i := range n {
				s := sample.Sample{Scenario: "chat", Endpoint: "e", Level: sample.NewLevel("concurrency", 2), Run: fmt.Sprintf("%s.%d", series, r), Seq: i,
					Start: now, TTFT: time.Millisecond, Total: time.Millisecond, OutputTokens: 1, Finish: "stop", Ceiling: n}
				if reps > 0 {
					s.Reps, s.Rep = reps, r
				}
				out = append(out, s)
			}
		}
		return out
	}
	o := MustParse(map[string]float64{"ttft_p95_ms": 600})
	cases := map[string]struct {
		samples                       []sample.Sample
		ceiling, runs, runsCeil, sent int
	}{
		"runs that decide alone":            {mk("a", 2, 0, 20), 40, 0, 0, 40},
		"4 of 10 runs decided together":     {mk("a", 4, 10, 20), 200, 4, 10, 80},
		"every run sent":                    {mk("a", 10, 10, 20), 200, 10, 10, 200},
		"two recordings pooled, 4 + 6 runs": {append(mk("a", 4, 10, 20), mk("b", 6, 10, 20)...), 400, 10, 20, 200},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := Judge(tc.samples, o)
			assert.Equal(t, tc.sent, v.Stats.Attempted)
			assert.Equal(t, tc.ceiling, v.Ceiling)
			assert.Equal(t, tc.runs, v.Runs)
			assert.Equal(t, tc.runsCeil, v.RunsCeiling)
			assert.Equal(t, tc.ceiling-tc.sent, v.Saved())
		})
	}
}
