package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/stream"
)

// TestEndpointAPI: api: and anthropic_version: reach the endpoint; an
// endpoint without api: is chat's.
func TestEndpointAPI(t *testing.T) {
	cfg, err := LoadFile(writeConfig(t, "endpoints:\n"+
		"  claude: {base_url: https://api.anthropic.com/v1, model: claude-sonnet-4-5, api: messages, anthropic_version: 2023-06-01}\n"+
		"  resp: {base_url: https://api.openai.com/v1, model: gpt-5, api: responses}\n"+
		"  emb: {sim: \"\", api: embeddings}\n"+
		"  plain: {base_url: http://x/v1, model: m}\n"))
	require.NoError(t, err)
	got := map[string]stream.Endpoint{}
	for _, ep := range cfg.Endpoints {
		got[ep.Name] = ep
	}
	assert.Equal(t, stream.APIMessages, got["claude"].API)
	assert.Equal(t, "2023-06-01", got["claude"].AnthropicVersion)
	assert.Equal(t, stream.APIResponses, got["resp"].API)
	assert.Equal(t, stream.APIEmbeddings, got["emb"].API)
	assert.True(t, got["emb"].Simulated)
	assert.Equal(t, stream.APIChat, got["plain"].API.Or())
}
