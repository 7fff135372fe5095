package metric

import (
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// TestConversationUnits: a run of single requests reports no figure of
// conversations (never a session of 0 ms), and a run of conversations
// reports both.
func TestConversationUnits(t *testing.T) {
	base := time.Now()
	plain := stats.Summarize([]sample.Sample{{Run: "r", Start: base, TTFT: time.Millisecond, Total: time.Millisecond, PromptTokens: 10, Finish: "stop"}}, nil)
	var turns []sample.Sample
	for k := 1; k <= 3; k++ {
		turns = append(turns, sample.Sample{Run: "r", Session: "r/0", Turn: k, Turns: 3, Start: base.Add(time.Duration(k) * time.Second),
			TTFT: time.Duration(k) * time.Millisecond, Total: 10 * time.Millisecond, PromptTokens: 100 * k, Finish: "stop"})
	}
	conv := stats.Summarize(turns, nil)
	for _, name := range []string{"session_total", "history_cost"} {
		f := Fig{ByName(name), 95}
		if v, ok := f.Bench(plain); ok {
			t.Errorf("%s reported %v on a run of single requests", f.Unit(), v)
		}
		if _, ok := f.Bench(conv); !ok {
			t.Errorf("%s not reported on a run of conversations", f.Unit())
		}
	}
}
