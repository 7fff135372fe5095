package provenance

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// provBase is a run's provenance as llmsla bench records it.
func provBase() sample.Provenance {
	return sample.Provenance{
		"client.go": "go1.24.0", "client.cpu": "AMD EPYC", "client.gomaxprocs": "2",
		"endpoint.sim.model": "sim", "endpoint.sim.model.digest": "/models/a", "endpoint.sim.server.version": "0.6.3",
		"endpoint.sim.response.system_fingerprint": "fp_1", "endpoint.sim.host": "built-in simulator",
		"scenario.chat.fixture.sha256": "sha256:aa", "scenario.chat.schema.invoice.json.sha256": "sha256:cc",
		"scenario.chat.endpoint.sim.cache": "bust", "scenario.chat.temperature": "0", "date": "20260101T000000Z",
	}
}

// TestCompareProvenance: a defining key that differs refuses the
// comparison naming the key, both values and what to do; -allow-change
// lets it through, listed first; keys that describe are listed, never
// refused.
func TestCompare(t *testing.T) {
	with := func(k, v string) sample.Provenance {
		p := provBase()
		if v == "" {
			delete(p, k)
		} else {
			p[k] = v
		}
		return p
	}
	cases := map[string]struct {
		new                       sample.Provenance
		allow                     []string
		refused                   []string // in the error; nil: no error
		changed, drifted, oneSide []string
	}{
		"the same":          {new: with("date", "20260102T000000Z")},
		"another digest":    {new: with("endpoint.sim.model.digest", "/models/b"), refused: []string{"endpoint.sim.model.digest differs: BASE has /models/a, NEW has /models/b", "a different model or server is a model comparison: llmsla ab or llmsla report", "-allow-change model.digest"}},
		"allowed digest":    {new: with("endpoint.sim.model.digest", "/models/b"), allow: []string{"model.digest"}, changed: []string{"endpoint.sim.model.digest: /models/a → /models/b"}},
		"fixture edited":    {new: with("scenario.chat.fixture.sha256", "sha256:bb"), refused: []string{"scenario.chat.fixture.sha256 differs", "re-record the baseline", "-allow-change fixture"}},
		"schema edited":     {new: with("scenario.chat.schema.invoice.json.sha256", "sha256:dd"), refused: []string{"-allow-change schema"}},
		"server upgraded":   {new: with("endpoint.sim.server.version", "0.7.0"), refused: []string{"-allow-change server.version"}},
		"cache policy":      {new: with("scenario.chat.endpoint.sim.cache", "natural"), refused: []string{"-allow-change cache"}},
		"temperature":       {new: with("scenario.chat.temperature", "0.7"), refused: []string{"-allow-change temperature"}},
		"another cpu":       {new: with("client.cpu", "Apple M2"), drifted: []string{"client.cpu: AMD EPYC → Apple M2"}},
		"a new fingerprint": {new: with("endpoint.sim.response.system_fingerprint", "fp_2"), drifted: []string{"endpoint.sim.response.system_fingerprint: fp_1 → fp_2"}},
		"digest unknown":    {new: with("endpoint.sim.model.digest", ""), oneSide: []string{"endpoint.sim.model.digest: /models/a → unknown"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := Compare("BASE", "NEW", provBase(), tc.new, tc.allow)
			if tc.refused != nil {
				require.Error(t, err)
				assert.True(t, errors.Is(err, recording.ErrUnusable), "exit 2")
				for _, w := range tc.refused {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.changed, strs(c.Changed), "changed")
			assert.Equal(t, tc.drifted, strs(c.Drifted), "drifted")
			assert.Equal(t, tc.oneSide, strs(c.OneSide), "one side")
			assert.Empty(t, c.Missing)
		})
	}
	_, err := Compare("BASE", "NEW", provBase(), provBase(), []string{"digest"})
	assert.ErrorContains(t, err, `allow-change "digest": not a kind of provenance key`)
	c, err := Compare("BASE", "NEW", sample.Provenance{"endpoint.sim.model": "sim"}, provBase(), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"BASE"}, c.Missing, "an old baseline without provenance is compared, with a warning")
}

func strs(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.String())
	}
	return out
}
