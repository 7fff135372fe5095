package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// TestServerLine: a level's server line says each figure measured and
// leaves out the others; with none, it says so with the readings behind.
func TestServerLine(t *testing.T) {
	srv := stats.NewServer()
	srv.Readings, srv.Sent, srv.Requests, srv.Preemptions = 12, 40, 40, 2
	srv.AddQueue(1)
	srv.AddQueue(3)
	srv.RunningMax, srv.KVPeak = 8, 0.41
	srv.TTFT = stats.Buckets{Bounds: []float64{0.04, 0.06, 0.08}, Counts: []float64{0, 30, 10, 0}}
	line := ServerLine(&stats.Stats{Server: srv})
	for _, want := range []string{"queue p95 2.9 max 3.0", "running max 8.0", "kv peak 41%", "preemptions 2",
		"server ttft p50 ", " ms in (40, 60] ms", "foreign +0%", "(12 readings)"} {
		assert.Contains(t, line, want)
	}
	assert.NotContains(t, line, "model memory", "not read")
	assert.NotContains(t, line, "prefix hit")

	none := stats.NewServer()
	none.Readings = 2
	none.Fail("metrics before: HTTP 503")
	none.Fail("metrics after: HTTP 503")
	assert.Equal(t, "no server figure measured (2 readings, 2 failed: metrics before: HTTP 503; metrics after: HTTP 503)",
		ServerLine(&stats.Stats{Server: none}))
	assert.Empty(t, ServerLine(&stats.Stats{}), "nothing read: no line")
}

// TestServerLinesEscaped: what a server sent (a model's name, an error
// quoting its body) is escaped in the verdict's lines, and foreign load
// warns unless an objective bounds it.
func TestServerLinesEscaped(t *testing.T) {
	srv := stats.NewServer()
	srv.Readings, srv.Sent, srv.Requests = 3, 10, 12
	srv.ModelMem, srv.ModelVRAM = 2e6, 0
	srv.Models = []string{"evil\x1b]52;c;x\a: size 2.0 MB, 0.0 MB in VRAM"}
	srv.Fail("metrics during: not the Prometheus text format: line 1: \x1b[2J")
	srv.Note("metrics: vllm:x\x1b[31m vanished")
	v := objective.Verdict{Scenario: "chat", Endpoint: "e", Level: "concurrency=1", Stats: &stats.Stats{Server: srv}}
	var out bytes.Buffer
	writeServers(&out, []objective.Verdict{v})
	text := out.String()
	assert.False(t, strings.ContainsAny(text, "\x1b\a"), "raw control characters in:\n%s", text)
	assert.Contains(t, text, `evil\x1b]52;c;x\a`)
	assert.Contains(t, text, "WARNING (chat endpoint=e concurrency=1): foreign load: the server finished 12 requests over the level, 10 sent here")
	assert.InDelta(t, 0.2, srv.Foreign(), 1e-12)

	v.Objectives = objective.MustParse(map[string]float64{"foreign_max": 0.5})
	out.Reset()
	writeServers(&out, []objective.Verdict{v})
	assert.NotContains(t, out.String(), "WARNING", "bounded by an objective: judged there, not warned")
	assert.False(t, math.IsNaN(srv.Foreign()))
}

// TestServerNotesOnce: a note several levels share is one line naming
// them (at most three, and how many more); a note of one level names it.
func TestServerNotesOnce(t *testing.T) {
	var vs []objective.Verdict
	for _, lv := range []string{"concurrency=1", "concurrency=5", "concurrency=10", "concurrency=20"} {
		srv := stats.NewServer()
		srv.Note("metrics: no reading during the level")
		if lv == "concurrency=20" {
			srv.Note("metrics: vllm:x vanished")
		}
		vs = append(vs, objective.Verdict{Scenario: "chat", Endpoint: "e", Level: sample.Level(lv), Stats: &stats.Stats{Server: srv}})
	}
	var out bytes.Buffer
	writeServerNotes(&out, vs)
	assert.Equal(t, "server (4 levels: chat endpoint=e concurrency=1, chat endpoint=e concurrency=5, chat endpoint=e concurrency=10, and 1 more): metrics: no reading during the level\n"+
		"server (chat endpoint=e concurrency=20): metrics: vllm:x vanished\n", out.String())
}

// TestServerFirstBucket: a percentile in a histogram's first bucket is
// said as its bound, not as an estimate placed inside (0, bound].
func TestServerFirstBucket(t *testing.T) {
	srv := stats.NewServer()
	srv.Readings = 2
	srv.E2E = stats.Buckets{Bounds: []float64{0.3, 0.5}, Counts: []float64{20, 0, 0}}
	line := ServerLine(&stats.Stats{Server: srv})
	assert.Contains(t, line, "server e2e p50 ≤ 300 ms, p95 ≤ 300 ms (n=20)")
}
