package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
)

// openRun is n samples of one run of level, scheduled every 1/rate from
// 1/rate on and sent 0.2 ms late, as shard shard ("" when unsharded).
func openRun(level, run, shard string, rate float64, n int) []sample.Sample {
	base := time.Now()
	out := make([]sample.Sample, n)
	for i := range out {
		sched := time.Duration(float64(i+1) / rate * float64(time.Second))
		out[i] = sample.Sample{Scenario: "chat", Endpoint: "e", Level: sample.Level(level), Run: run, Shard: shard,
			Start: base.Add(sched + 200*time.Microsecond), Sched: sched, Lag: 200 * time.Microsecond,
			TTFT: 10 * time.Millisecond, Total: 50 * time.Millisecond, OutputTokens: 2, Finish: "stop"}
	}
	return out
}

// TestRateSentLine: the open-loop line compares the rate sent and
// scheduled with the rate asked — a shard's with its share, alone or
// merged — says when only part of a schedule was sent and by how much,
// and compares a level without one rate (a ramp) with nothing.
func TestRateSentLine(t *testing.T) {
	shards := func(rate float64, n int) []sample.Sample {
		var out []sample.Sample
		for i := range 3 {
			out = append(out, openRun("rate=30", fmt.Sprintf("p%d.1", i), fmt.Sprintf("%d/3", i), rate, n)...)
		}
		return out
	}
	for name, tc := range map[string]struct {
		samples []sample.Sample
		want    string
	}{
		"the rate asked":   {openRun("rate=20", "p.1", "", 20, 100), "sent at 20.0 req/s, scheduled 20.0 (asked 20.0); lag"},
		"a shard of three": {openRun("rate=30", "p.1", "1/3", 10, 100), "each of 3 shards sent at 10.0 req/s, scheduled 10.0 (asked 10.0, its share of 30.0); lag"},
		"three merged":     {shards(10, 100), "each of 3 shards sent at 10.0 req/s, scheduled 10.0 (asked 10.0, its share of 30.0); lag"},
		"part of a schedule": {openRun("rate=20", "p.1", "", 21, 30),
			"sent at 21.0 req/s, scheduled 21.0 (asked 20.0; +5.0% off it: only part of the schedule was sent (a soak's duration, a stopped run), and 30 requests of a random schedule are off its rate by about ±18.3%); lag"},
		"a ramp": {openRun("ramp=1to50", "p.1", "", 25, 100), "sent at 25.0 req/s, scheduled 25.0; lag"},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			Load(&out, []objective.Verdict{objective.Judge(tc.samples, nil)})
			line, _, _ := strings.Cut(out.String(), "\n")
			assert.Contains(t, line, tc.want)
		})
	}
}
