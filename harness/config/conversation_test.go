package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
)

// TestConversationConfig: the levels of conversations come from load's
// registry, take the scenario's arrivals, and a scenario may name a
// session header and bound its turns; per-endpoint overrides apply.
func TestConversationConfig(t *testing.T) {
	p := writeConfig(t, `
endpoints:
  a: {base_url: http://x/v1, model: m}
scenarios:
  conversation:
    sessions: [1, 4]
    session_rate: 2
    arrival: constant
    max_concurrency: 8
    session_header: X-Session-Affinity
    sla:
      ttft_p95_ms: 500
      turn_ttft_p95_ms: {3: 700, 5: 900}
      session_total_p95_ms: 30000
    endpoints:
      a: {sla: {turn_ttft_p95_ms: {5: 1200}}}
`)
	cfg, err := LoadFile(p)
	require.NoError(t, err)
	sc := cfg.Scenario("conversation", "")
	var labels []string
	for _, l := range sc.Levels() {
		labels = append(labels, string(l.Label()))
		assert.True(t, load.PacesSessions(l.Pacer), l.Label())
	}
	assert.Equal(t, []string{"sessions=1", "sessions=4", "session_rate=2"}, labels)
	assert.Equal(t, load.SessionRate{Rate: 2, Arrivals: load.Arrivals{Arrival: load.Constant, MaxConcurrency: 8}}, sc.Levels()[2].Pacer)
	assert.Equal(t, "X-Session-Affinity", sc.SessionHeader)
	var keys []string
	for _, th := range sc.Objectives {
		keys = append(keys, th.String())
	}
	assert.Equal(t, []string{"ttft p95 ≤ 500 ms", "ttft p95 from turn 3 ≤ 700 ms", "ttft p95 from turn 4 ≤ 900 ms", "ttft p95 from turn 5 ≤ 900 ms", "total p95 ≤ 8000 ms",
		"error rate ≤ 1%", "session total p95 ≤ 30000 ms"}, keys, "the preset's, with the file's on top")
	over := cfg.Scenario("conversation", "a")
	assert.Equal(t, 1200.0, bound(t, over.Objectives, "turn_ttft_p95_ms.5"), "an endpoint's turn bound replaces the scenario's")
	assert.Equal(t, 700.0, bound(t, over.Objectives, "turn_ttft_p95_ms.3"))
}

// TestConversationConfigErrors: each mistake names its file, line and key.
func TestConversationConfigErrors(t *testing.T) {
	const head = "endpoints:\n  a: {base_url: http://x/v1, model: m}\nscenarios:\n  conversation:\n"
	cases := map[string]struct{ yaml, want string }{
		"no sessions":       {head + "    sessions: [0]\n", `:5: scenarios.conversation.sessions: "0" is not a whole number from 1 to 100000`},
		"bad session rate":  {head + "    session_rate: fast\n", `:5: scenarios.conversation.session_rate: "fast" is not a rate (want conversations started per second`},
		"header name":       {head + "    session_header: \"X Session\"\n", `:5: scenarios.conversation.session_header: "X Session" is not a header name`},
		"a header of ours":  {head + "    session_header: authorization\n", ":5: scenarios.conversation.session_header: authorization is a header every request sets itself"},
		"header, no levels": {head + "    concurrency: 2\n    session_header: X-S\n", ":6: scenarios.conversation.session_header: names the conversations of sessions: or session_rate: levels"},
		"turn bound a number": {head + "    sla: {turn_ttft_p95_ms: 800}\n",
			":5: scenarios.conversation.sla.turn_ttft_p95_ms: want a mapping of turn to bound, e.g. {5: 800} (from turn 5 on; ttft_p95_ms bounds every turn)"},
		"turn not a number": {head + "    sla:\n      turn_ttft_p95_ms: {late: 800}\n", `:6: scenarios.conversation.sla.turn_ttft_p95_ms.late: "late" is not a turn`},
		"turn 0":            {head + "    sla:\n      turn_ttft_p95_ms: {0: 800}\n", ":6: scenarios.conversation.sla.turn_ttft_p95_ms.0: not a turn (want a whole number from 1 to 1000"},
		"bound not a number": {head + "    sla:\n      turn_ttft_p95_ms: {2: soon}\n",
			`:6: scenarios.conversation.sla.turn_ttft_p95_ms.2: "soon" is not a number`},
		"turn of another figure": {head + "    sla:\n      turn_total_p95_ms: {2: 800}\n",
			":6: scenarios.conversation.sla.turn_total_p95_ms.2: not a per-turn objective (allowed: turn_ttft_p<50|90|95|99>_ms: {turn: ms})"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			_, err := LoadFile(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+tc.want)
		})
	}
}
