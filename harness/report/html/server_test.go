package html

import (
	"bytes"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/report"
)

// testTimelines is two endpoints' servers read every second over three
// levels of 20 s from t0: a queue that grows with the load, a batch that
// fills, KV usage, memory.
func testTimelines(t0 time.Time) []report.Timeline {
	var out []report.Timeline
	for e, name := range []string{"hosted", "local"} {
		tl := report.Timeline{Endpoint: name}
		points := map[string][]report.TimePoint{}
		for lv, c := range []int{1, 4, 16} {
			from := t0.Add(time.Duration(lv*22) * time.Second)
			tl.Levels = append(tl.Levels, report.Span{Scenario: "chat", Level: "concurrency=" + strconv.Itoa(c), From: from, To: from.Add(20 * time.Second)})
			for s := range 21 {
				at := from.Add(time.Duration(s) * time.Second)
				wave := 1 + 0.3*math.Sin(float64(s+e))
				points[report.QuantityQueue] = append(points[report.QuantityQueue], report.TimePoint{At: at, Value: math.Max(0, float64(c-4)*wave)})
				points[report.QuantityRunning] = append(points[report.QuantityRunning], report.TimePoint{At: at, Value: math.Min(float64(c), 8)})
				points[report.QuantityKV] = append(points[report.QuantityKV], report.TimePoint{At: at, Value: math.Min(100, 6*float64(c)*wave)})
				points[report.QuantityProcessMemory] = append(points[report.QuantityProcessMemory], report.TimePoint{At: at, Value: 900 + 40*float64(c)})
				points[report.QuantityModelMemory] = append(points[report.QuantityModelMemory], report.TimePoint{At: at, Value: 700})
			}
		}
		for _, q := range []string{report.QuantityQueue, report.QuantityRunning, report.QuantityKV, report.QuantityProcessMemory, report.QuantityModelMemory} {
			tl.Series = append(tl.Series, report.TimeSeries{Quantity: q, Points: points[q]})
		}
		out = append(out, tl)
	}
	return out
}

// TestServerPlots: the page draws what the servers said over time, a line
// per endpoint and quantity, each level marked and named; without any
// timeline there are no such plots, and a quantity no server gave is
// said to be missing.
func TestServerPlots(t *testing.T) {
	b := testBoard(t)
	figs, err := serverFigures(b)
	require.NoError(t, err)
	require.Len(t, figs, 3)
	for _, f := range figs {
		require.Empty(t, f.Missing, f.ID)
		svg := string(f.SVG)
		for _, level := range []string{"concurrency=1", "concurrency=4", "concurrency=16"} {
			assert.Contains(t, svg, level, "%s: the level named", f.ID)
		}
		assert.Contains(t, svg, "seconds since the first reading")
		assert.Contains(t, svg, `class="legend"`)
	}
	assert.Contains(t, string(figs[0].SVG), "local queue depth")
	assert.Contains(t, string(figs[0].SVG), "hosted running requests")

	b.Timelines = b.Timelines[:1]
	b.Timelines[0].Series = b.Timelines[0].Series[:1] // the queue alone
	figs, err = serverFigures(b)
	require.NoError(t, err)
	assert.Empty(t, figs[0].Missing)
	assert.Equal(t, "Not read: no server gave KV-cache usage (%).", figs[1].Missing)

	b.Timelines = nil
	figs, err = serverFigures(b)
	require.NoError(t, err)
	assert.Empty(t, figs)
	var page bytes.Buffer
	require.NoError(t, Write(&page, b))
	assert.NotContains(t, page.String(), "server-queue")
}
