package stream_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestProvenanceAgainstTruth: each sample's response id and model are the
// ones the simulator sent for that request, and a server that says
// nothing of its cache (the simulator's usage has no
// prompt_tokens_details) leaves cached_tokens unknown, never 0.
func TestProvenanceAgainstTruth(t *testing.T) {
	cfg := sim.Config{TTFT: 2 * time.Millisecond, TPOT: time.Millisecond, OutputTokens: 4, Seed: 5}
	srv, url := sim.Start(t, cfg)
	c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "served-model"})
	defer c.CloseIdle()
	samples := load.NewRunner().Run(context.Background(), c, hello(), load.Closed(2), 6)
	byID := map[string]sim.Truth{}
	for _, tr := range srv.Truth() {
		byID[tr.ID] = tr
	}
	require.Len(t, samples, 6)
	for _, s := range samples {
		require.True(t, s.OK(), s.Err)
		tr, ok := byID[s.ID]
		require.True(t, ok, "sample id %q is no request the simulator answered", s.ID)
		assert.Equal(t, tr.Model, s.ResponseModel, "the model the response named")
		assert.Nil(t, s.CachedTokens, "no cache figure sent: unknown")
		assert.Empty(t, s.ToolCalls)
		assert.Zero(t, s.TTFTool)
		assert.Zero(t, s.ToolDone)
	}
}
