package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// TestTraceLengths: under the table, a replayed trace's lengths sent
// beside those asked, and a warning when one is more than 10% off.
func TestTraceLengths(t *testing.T) {
	replay := func(output, prompt int) objective.Verdict {
		var ss []sample.Sample
		start := time.Now()
		for i := range 20 {
			ss = append(ss, sample.Sample{Scenario: "chat", Endpoint: "sim", Level: "trace=x/speedup=1", Run: "r", Seq: i,
				Start: start.Add(time.Duration(i) * time.Millisecond), Sched: time.Duration(i+1) * time.Millisecond,
				TTFT: time.Millisecond, Total: 2 * time.Millisecond, OutputTokens: output, PromptTokens: prompt, Finish: "stop",
				Asked: &sample.Asked{PromptTokens: 100, OutputTokens: 40}})
		}
		return objective.Judge(ss, nil)
	}
	cases := map[string]struct {
		v    objective.Verdict
		want []string
		not  string
	}{
		"as asked":     {replay(40, 104), []string{"trace (chat endpoint=sim trace=x speedup=1): sent at 1000 req/s, the trace's arrival rate at its speedup 1000; output tokens 40.0 received of 40.0 asked, prompt tokens 104 counted of 100 asked (means over 20 requests)"}, "WARNING"},
		"short output": {replay(20, 100), []string{"WARNING (chat endpoint=sim trace=x speedup=1): output tokens 50.0% off what the trace asked (20.0 of 40.0)"}, "prompt tokens 0"},
		"long prompt":  {replay(40, 130), []string{"WARNING (chat endpoint=sim trace=x speedup=1): prompt tokens 30.0% off"}, "output tokens 0.0%"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			report.Load(&b, []objective.Verdict{tc.v})
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), tc.not) {
				t.Errorf("has %q:\n%s", tc.not, b.String())
			}
		})
	}
}
