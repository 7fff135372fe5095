package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/sample"
)

func TestProvenanceLines(t *testing.T) {
	p := sample.Provenance{"client.go": "go1.24", "client.cores": "2", "endpoint.sim.model.digest": "/models/a", "endpoint.sim.model": "sim",
		"scenario.chat.fixture.sha256": "sha256:e587310b76a80f7c8c4dcd330fc706f2a7b42012ea8e1b865b604203c493307d"}
	assert.Equal(t, []string{
		"provenance (what was measured; llmsla gate refuses a baseline that differs in what defines it):",
		"  client: cores=2, go=go1.24",
		"  endpoint sim: model=sim, model.digest=/models/a",
		"  scenario chat: fixture.sha256=sha256:e587310b76a8",
	}, ProvenanceLines(p))
	assert.Contains(t, ProvenanceLines(nil)[0], "provenance: not recorded")
}
