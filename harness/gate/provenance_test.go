package gate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/provenance"
)

// TestReportStartsWithChange: with -allow-change, the report's first
// line is what changed, and what drifted is listed under the verdict.
func TestReportStartsWithChange(t *testing.T) {
	rep := &Report{Base: "BASE", New: "NEW", Provenance: provenance.Check{
		Changed: []provenance.Change{{Key: "endpoint.sim.model.digest", Base: "/models/a", New: "/models/b", Kind: "model.digest"}},
		Drifted: []provenance.Change{{Key: "client.cpu", Base: "a", New: "b"}}}}
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	lines := strings.Split(b.String(), "\n")
	assert.Equal(t, "CHANGED (-allow-change model.digest) endpoint.sim.model.digest: /models/a → /models/b", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "gate PASS"), lines[1])
	assert.Contains(t, b.String(), "provenance: client.cpu: a → b (describes the client or drifts on its own: not refused)")
}
