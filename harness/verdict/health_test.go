package verdict

import (
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
