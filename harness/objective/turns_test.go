package objective

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// conversationRun is ten conversations of three turns whose TTFT is 100,
// 300 and 700 ms turn by turn.
func conversationRun() []sample.Sample {
	base := time.Now()
	var out []sample.Sample
	for c := range 10 {
		for k, ttft := range []time.Duration{100, 300, 700} {
			ttft *= time.Millisecond
			out = append(out, sample.Sample{Run: "r", Session: fmt.Sprintf("r/%d", c), Turn: k + 1, Turns: 3,
				Start: base.Add(time.Duration(c*3+k) * time.Second), TTFT: ttft, Total: ttft + time.Millisecond, PromptTokens: 100 * (k + 1), Finish: "stop"})
		}
	}
	return out
}

// mustTurn is ParseTurn for a test's objectives.
func mustTurn(t *testing.T, key string, turn int, v float64) Threshold {
	t.Helper()
	th, err := ParseTurn(key, turn, v)
	require.NoError(t, err)
	return th
}

// TestTurnObjectives: ttft_p95_ms holds on every turn apart as well as
// over all turns; a turn_ objective replaces it from its turn on (and its
// pooled check); a turn bound no conversation reached is not measured;
// goodput judges each turn's request against its turn's bound.
func TestTurnObjectives(t *testing.T) {
	samples := conversationRun()
	plain := MustParse(map[string]float64{"ttft_p95_ms": 500})
	cases := map[string]struct {
		o    Objectives
		want []string
		good int // of the 30 requests
	}{
		"every turn": {plain, []string{
			"ttft p95 700 ms > 500 ms (n=30)",
			"ttft p95 at turn 3 700 ms > 500 ms (n=10)"}, 20},
		"later turns allowed more": {plain.Set(mustTurn(t, "turn_ttft_p95_ms", 3, 800)), nil, 30},
		"from turn 2": {plain.Set(mustTurn(t, "turn_ttft_p95_ms", 2, 200)), []string{
			"ttft p95 at turn 2 300 ms > 200 ms (n=10)",
			"ttft p95 at turn 3 700 ms > 200 ms (n=10)"}, 10},
		"bands": {plain.Set(mustTurn(t, "turn_ttft_p95_ms", 2, 200)).Set(mustTurn(t, "turn_ttft_p95_ms", 3, 700)), []string{
			"ttft p95 at turn 2 300 ms > 200 ms (n=10)"}, 20},
		"a turn never reached": {plain.Set(mustTurn(t, "turn_ttft_p95_ms", 5, 800)), []string{
			"ttft p95 at turn 3 700 ms > 500 ms (n=10)",
			"ttft p95 from turn 5 not measured, want ≤ 800 ms (n=0): it needs conversations of 5 turns or more (a fixture whose cases have turns:, at a sessions: or session_rate: level)"}, 20},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := Judge(samples, tc.o)
			var got []string
			for _, viol := range v.Violations {
				got = append(got, viol.String())
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.good, v.Stats.Good, "requests good by their turn's bound")
		})
	}

	single := Judge([]sample.Sample{{Run: "r", Start: time.Now(), TTFT: time.Millisecond, Total: time.Millisecond, Finish: "stop"}},
		Objectives{mustTurn(t, "turn_ttft_p95_ms", 2, 800)})
	require.Len(t, single.Violations, 1, "a turn objective on a run without conversations")
	assert.Contains(t, single.Violations[0].String(), "ttft p95 from turn 2 not measured")
}

// TestParseTurn: a turn_ objective names a ttft percentile and a turn,
// and says what is allowed otherwise.
func TestParseTurn(t *testing.T) {
	th := mustTurn(t, "turn_ttft_p95_ms", 5, 800)
	assert.Equal(t, "turn_ttft_p95_ms.5", th.Key())
	assert.Equal(t, "ttft p95 from turn 5 ≤ 800 ms", th.String())
	for key, want := range map[string]string{
		"turn_total_p95_ms": "turn_total_p95_ms: not a per-turn objective (allowed: turn_ttft_p<50|90|95|99>_ms: {turn: ms})",
		"turn_ttft_p96_ms":  "turn_ttft_p96_ms: not a per-turn objective",
		"ttft_p95_ms":       "ttft_p95_ms: not a per-turn objective",
	} {
		_, err := ParseTurn(key, 5, 800)
		assert.ErrorContains(t, err, want, key)
	}
	_, err := ParseTurn("turn_ttft_p95_ms", 0, 800)
	assert.EqualError(t, err, "turn_ttft_p95_ms.0: not a turn (want a whole number from 1 to 1000, e.g. {5: 800})")
	_, err = ParseTurn("turn_ttft_p95_ms", 3, -1)
	assert.EqualError(t, err, "turn_ttft_p95_ms.3: -1 is not a threshold (want a number ≥ 0)")

	o := MustParse(map[string]float64{"ttft_p95_ms": 500, "error_rate_max": 0.01}).Set(mustTurn(t, "turn_ttft_p95_ms", 5, 900)).Set(mustTurn(t, "turn_ttft_p95_ms", 3, 700))
	var keys []string
	for _, th := range o {
		keys = append(keys, th.Key())
	}
	assert.Equal(t, []string{"ttft_p95_ms", "turn_ttft_p95_ms.3", "turn_ttft_p95_ms.5", "error_rate_max"}, keys, "a figure's bounds together, by turn")
}
