package objective

import (
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCasePass: a case that fails one try in three hides in accuracy,
// not in case_pass_min: the run fails, naming
// the case always wrong apart from the flaky one and the one asked too
// few times; tries pool over the run's levels.
func TestCasePass(t *testing.T) {
	now := time.Now()
	var samples []sample.Sample
	add := func(level int, id string, right bool) {
		samples = append(samples, sample.Sample{Scenario: "chat", Endpoint: "e", Level: sample.NewLevel("concurrency", level), Run: "r", Seq: len(samples),
			Start: now, TTFT: time.Millisecond, TTFA: time.Millisecond, Total: time.Millisecond, OutputTokens: 1, Finish: "stop", Case: id,
			Quality: &sample.Quality{MatchChecked: true, Matched: right}})
	}
	for _, level := range []int{1, 5, 10} { // one try of each case per level
		add(level, "always", true)
		add(level, "wrong", false)
		add(level, "flaky", level != 5)
	}
	add(1, "short", true)
	add(5, "short", true)
	for name, tc := range map[string]struct {
		k, pass int
		want    string // "" passes
	}{
		"pass^3": {3, 3, "case pass: 3 of 4 cases miss every case passes 3 of 3 tries (always wrong: wrong (0 of 3); flaky: flaky (passed 2 of 3); asked fewer than 3 times: short (2))"},
		"2 of 3": {3, 2, "case pass: 2 of 4 cases miss every case passes 2 of 3 tries (always wrong: wrong (0 of 3); asked fewer than 3 times: short (2))"},
		"1 of 1": {1, 1, "case pass: 2 of 4 cases miss every case passes 1 of 1 tries (always wrong: wrong (0 of 3); flaky: flaky (passed 2 of 3))"},
	} {
		t.Run(name, func(t *testing.T) {
			th, err := ParseCasePass(tc.k, tc.pass)
			require.NoError(t, err)
			o := MustParse(map[string]float64{"accuracy_min": 0}).Set(th) // accuracy alone would pass
			vs := Evaluate(samples, func(string, string) Objectives { return o })
			require.Len(t, vs, 3)
			assert.Empty(t, vs[0].Violations, "judged once, on the run's last level")
			var lines []string
			for _, v := range vs[2].Violations {
				lines = append(lines, v.String())
			}
			assert.Contains(t, strings.Join(lines, "\n"), tc.want)
		})
	}
	_, err := ParseCasePass(3, 4)
	assert.ErrorContains(t, err, "want 1 ≤ pass ≤ k")
	_, err = Parse("case_pass_min", 1)
	assert.ErrorContains(t, err, "want {k: N, pass: M}")
}
