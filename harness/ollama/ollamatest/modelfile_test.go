package ollamatest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/internal/modroot"
)

// TestShippedModelfiles: the recipe the docs give (fixtures/models'
// Modelfiles) is the test model with one thread, and its tools variant
// has a template that offers tools — what the Ollama tests serve.
func TestShippedModelfiles(t *testing.T) {
	for file, tools := range map[string]bool{"fixtures/models/Modelfile": false, "fixtures/models/Modelfile.tools": true} {
		path, err := modroot.Path(file)
		require.NoError(t, err)
		m, err := readModelfile(path)
		require.NoError(t, err, file)
		assert.Equal(t, "./llama-2-tiny-random.gguf", m.from, file)
		assert.Equal(t, 1, m.parameters["num_thread"], "%s: one thread", file)
		assert.Equal(t, tools, m.template != "", file)
		if tools {
			assert.Contains(t, m.template, "{{- if .Tools }}")
			assert.Contains(t, m.template, "{{ range .ToolCalls }}")
		}
	}
}
