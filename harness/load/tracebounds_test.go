package load_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
)

// TestTraceSpeedupBounds: a slow-down that stretches a trace past a
// year — past the offset a sample may hold, or past what a Duration
// holds, where the schedule wrapped into the past — is refused before
// any request, naming the speedup and how long the replay would last.
func TestTraceSpeedupBounds(t *testing.T) {
	day := evenTrace(t, 3, 12*time.Hour, 1, 1) // rows at 0, 12 h and 24 h
	for name, tc := range map[string]struct {
		speedup float64
		err     string
	}{
		"a hundredth: 100 days":        {speedup: 0.01},
		"a thousandth: 1000 days":      {speedup: 0.001, err: "speedup 0.001 stretches the trace (24h0m0s) to 1000 days, longer than a run may last (366 days)"},
		"a millionth: past a Duration": {speedup: 1e-6, err: "speedup 1e-06 stretches the trace (24h0m0s) to 1e+06 days"},
		"zero":                         {speedup: 0, err: "want a factor > 0"},
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := load.NewTrace(day, tc.speedup)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			d, ok := tr.Duration(3)
			assert.True(t, ok)
			assert.Equal(t, 2400*time.Hour, d)
		})
	}
}
