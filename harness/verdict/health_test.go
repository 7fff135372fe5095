package verdict

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// TestBesideClientError: a level's server figures reach the verdict with
// the client's error of the same level, found by the benchmark's name as
// the results file records it; another level's health is not lent.
func TestBesideClientError(t *testing.T) {
	lv := sample.Level("concurrency=1")
	assert.Equal(t, benchLabel("BenchmarkChat/endpoint=default/concurrency=1-2"), healthLabel("chat", "default", lv))
	assert.Equal(t, benchLabel("BenchmarkToolLoop/endpoint=a_b/concurrency=1-2"), healthLabel("tool_loop", "a b", lv))

	srv := stats.NewServer()
	r := &Run{
		Servers: Servers{Figures: func(string, string, sample.Level) *stats.Server { return srv }},
		Health:  []LevelHealth{{Label: "chat endpoint=default concurrency=1", Figures: health.Figures{LateP99: 1.4}}},
	}
	var servers objective.Servers = r.beside()
	assert.Equal(t, 2.8, servers("chat", "default", lv).ClientError)
	assert.Equal(t, 0.0, servers("chat", "default", "concurrency=5").ClientError, "no health recorded for the level")
	assert.Equal(t, 0.0, srv.ClientError, "the watcher's figures are not changed")
	r.Servers.Figures = nil
	assert.Nil(t, r.beside()("chat", "default", lv))
}

// TestHealthLineSimShare: a level's line names the in-process
// simulator's part of the CPU when it was measured, and a client-bound
// level whose simulator took a quarter or more says to run it apart; a
// share not measured is not printed as 0.
func TestHealthLineSimShare(t *testing.T) {
	bound := health.Figures{Wakes: 5000, LateP50: 0.5, LateP99: 45, LateMax: 70, CPU: 1.9, Cores: 2, Sim: 0.4, SimMeasured: true}
	var b strings.Builder
	WriteHealth(&b, []LevelHealth{{Label: "chat endpoint=sim concurrency=50", Figures: bound}}, nil, false)
	assert.Contains(t, b.String(), "cpu 1.9 of 2.0 cores (40.0% of it the in-process simulator's)")
	assert.Contains(t, b.String(), "run it as its own process (llmsla sim")

	b.Reset()
	small := bound
	small.Sim = 0.1
	WriteHealth(&b, []LevelHealth{{Label: "chat", Figures: small}}, nil, false)
	assert.Contains(t, b.String(), "(10.0% of it the in-process simulator's)")
	assert.NotContains(t, b.String(), "run it as its own process", "a tenth is not what starved it")

	b.Reset()
	unmeasured := bound
	unmeasured.Sim, unmeasured.SimMeasured = 0, false
	WriteHealth(&b, []LevelHealth{{Label: "chat", Figures: unmeasured}}, nil, false)
	assert.NotContains(t, b.String(), "simulator")
}
