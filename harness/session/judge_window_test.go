package session

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// windowSpec is a simulator slow enough that a judge request among the
// measured ones would show: 20 ms to the first token, 1 ms a token.
const windowSpec = "ttft=20ms,tpot=1ms,jitter=0.1,wrong=0.3,seed=9"

// TestJudgeOutsideMeasuredWindows: over two levels of the judged summary,
// no judge request is in flight while a measured one is (each level's
// window, first t0 to last end, holds none of the judge's arrivals and
// ends), and the measured requests' timings equal those of the same run
// without a judge, side by side, within the truth tests' bounds: each
// run's readings of the first token and the end are within 0.5 ms of
// the simulator's instants at the median and 2 ms at p90, and the two
// runs' median TTFTs are within 1 ms of each other.
func TestJudgeOutsideMeasuredWindows(t *testing.T) {
	var last string
	for try := range 3 {
		judged, windows, judgeSpans := windowRun(t, true)
		plain, _, _ := windowRun(t, false)
		for _, w := range windows {
			for _, js := range judgeSpans {
				require.False(t, js[0].Before(w[1]) && js[1].After(w[0]),
					"a judge request (%v to %v) fell inside a measured window (%v to %v)", js[0], js[1], w[0], w[1])
			}
		}
		require.NotEmpty(t, judgeSpans, "the judge was asked")
		last = compareTimings(judged, plain)
		if last == "" {
			return
		}
		t.Logf("try %d: %s (measured again: the machine may be busy)", try+1, last)
	}
	t.Fatal(last)
}

// windowRun measures two levels of the judged summary (with a judge or
// without), and returns the reading errors of each measured request (µs:
// ttft and total against the simulator's instants), the client's TTFTs,
// each level's measured window and each judge request's span.
func windowRun(t *testing.T, withJudge bool) (readings [3][]float64, windows, judgeSpans [][2]time.Time) {
	t.Helper()
	s, cfg := judgeSession(t, judgeSetup{spec: windowSpec, judgeSpec: "ttft=5ms,tpot=1ms,judge"})
	if !withJudge {
		s, cfg = simSession(t, windowSpec)
	}
	src, err := s.Source(summaryJudged)
	require.NoError(t, err)
	conf := cfg.Scenario("summary", "sim")
	conf.Warmup = 2
	var all []sample.Sample
	for _, c := range []int{1, 2} {
		out, err := s.Measure(context.Background(), Cell{Scenario: "summary", Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(c)}, Fixture: src}, 22)
		require.NoError(t, err)
		ms := measured(out)
		w := [2]time.Time{ms[0].Start, ms[0].End()}
		for _, smp := range ms {
			w[0], w[1] = minTime(w[0], smp.Start), maxTime(w[1], smp.End())
			require.Equal(t, withJudge, smp.Quality.JudgeChecked)
		}
		windows = append(windows, w)
		all = append(all, ms...)
	}
	ttft, total, err := s.Sim("sim").ReadingErrors(all)
	require.NoError(t, err)
	for _, smp := range all {
		readings[2] = append(readings[2], stats.Ms(smp.TTFT))
	}
	readings[0], readings[1] = ttft, total
	if withJudge {
		for _, tr := range judgeSim(s).Truth() {
			judgeSpans = append(judgeSpans, [2]time.Time{tr.Received, tr.Last})
		}
	}
	return readings, windows, judgeSpans
}

// compareTimings says how the judged run's timings miss the bounds, ""
// when they hold.
func compareTimings(judged, plain [3][]float64) string {
	for i, run := range [][3][]float64{judged, plain} {
		name := [2]string{"with the judge", "without"}[i]
		for k, what := range []string{"ttft", "total"} {
			d := stats.Describe(run[k])
			if d.P50 > 500 || d.P90 > 2000 {
				return name + ": " + what + " reading error p50 " + us(d.P50) + ", p90 " + us(d.P90) + " (bounds 500 µs, 2000 µs)"
			}
		}
	}
	a, b := stats.Describe(judged[2]).P50, stats.Describe(plain[2]).P50
	if math.Abs(a-b) > 1 {
		return "median ttft " + us(a*1000) + " with the judge, " + us(b*1000) + " without: more than 1 ms apart"
	}
	return ""
}

func us(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) + " µs" }
