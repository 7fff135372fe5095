package stats

import (
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestConcurrencyNotReached: a level of concurrency 16 whose runs measured
// 5 requests each says so, with the 5 it reached; one that ran its 16 at
// once does not.
func TestConcurrencyNotReached(t *testing.T) {
	base := time.Now()
	ms := time.Millisecond
	runs := func(level sample.Level, runs, n int) []sample.Sample {
		var out []sample.Sample
		for r := range runs {
			for i := range n {
				out = append(out, sample.Sample{Run: string(rune('a' + r)), Level: level, Start: base.Add(time.Duration(r) * time.Second).Add(time.Duration(i) * ms),
					TTFT: 5 * ms, Total: 100 * ms, OutputTokens: 3, Finish: "stop"})
			}
		}
		return out
	}
	st := Summarize(runs("concurrency=16", 10, 5), nil) // 50 measured in all, 5 a run
	if st.PeakInFlight != 5 || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "concurrency=16 with runs of 5 measured requests: at most 5 were in flight") {
		t.Errorf("peak %d, warnings %q", st.PeakInFlight, st.Warnings)
	}
	st = Summarize(runs("concurrency=16", 2, 16), nil)
	if st.PeakInFlight != 16 || len(st.Warnings) != 0 {
		t.Errorf("peak %d, warnings %q, want 16 and none", st.PeakInFlight, st.Warnings)
	}
	// Back to back, not overlapping: an end and a start at one instant.
	seq := []sample.Sample{{Start: base, Total: ms, Finish: "stop"}, {Start: base.Add(ms), Total: ms, Finish: "stop"}}
	if p := Summarize(seq, nil).PeakInFlight; p != 1 {
		t.Errorf("back-to-back requests: peak %d, want 1", p)
	}
}
