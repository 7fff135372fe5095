package report

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
)

// conversationRun is conversations of three turns at sessions=2, each
// turn 100 history tokens and 5 ms of TTFT more than the last, sent late
// after a 50 ms think time; the last conversation is cut after its first
// turn.
func conversationRun(n int, late time.Duration) []sample.Sample {
	base := time.Now()
	var out []sample.Sample
	at := base
	for c := range n {
		turns := 3
		if c == n-1 {
			turns = 1
		}
		for k := 1; k <= turns; k++ {
			think := time.Duration(0)
			if k > 1 {
				think = 50 * time.Millisecond
				at = at.Add(think + late)
			}
			ttft := time.Duration(10+5*k) * time.Millisecond
			s := sample.Sample{Scenario: "conversation", Endpoint: "e", Level: "sessions=2", Run: "r", Session: fmt.Sprintf("r/%d", c),
				Turn: k, Turns: 3, Think: think, Start: at, TTFT: ttft, Total: ttft + 10*time.Millisecond, PromptTokens: 100 * k, Finish: "stop"}
			out = append(out, s)
			at = s.End()
		}
	}
	return out
}

// TestConversationLines: under the table, a level of conversations says
// how its conversations ended, their total time, TTFT turn by turn with
// the history sent, the history's fit; a client late after think times
// is warned of; a level of single requests gets none of it.
func TestConversationLines(t *testing.T) {
	var out bytes.Buffer
	Verdicts(&out, []objective.Verdict{objective.Judge(conversationRun(4, 0), nil)})
	got := out.String()
	assert.Contains(t, got, "conversations (conversation endpoint=e sessions=2): 4 (3 complete, 0 ended by a failed turn, 1 cut short by the run's count or duration); session total p50/p95 190/190 ms (n=3); think lag p95/max 0.0/0.0 ms\n")
	assert.Contains(t, got, "  ttft p50/p95 by turn: 1: 15.0/15.0 ms (n=4, 100 tokens) · 2: 20.0/20.0 ms (n=3, 200 tokens) · 3: 25.0/25.0 ms (n=3, 300 tokens)\n")
	assert.Contains(t, got, "  history: ttft = 10.0 ms + 50.0 ms per 1k tokens of history (± 0.0, n=10)\n")
	assert.NotContains(t, got, "WARNING")

	out.Reset()
	Verdicts(&out, []objective.Verdict{objective.Judge(conversationRun(4, 3*time.Millisecond), nil)})
	assert.Contains(t, out.String(), "WARNING (conversation endpoint=e sessions=2): the client sent turns late after their think times: think lag p95 3.0 ms > 1.0 ms")

	out.Reset()
	Verdicts(&out, []objective.Verdict{objective.Judge(openRun("rate=30", "r", "", 30, 20), nil)})
	assert.NotContains(t, out.String(), "conversations (")
}
