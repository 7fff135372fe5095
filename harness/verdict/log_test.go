package verdict

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
)

// TestWindow (issue 29, item 8): a -window given of no length, or a
// negative one, is refused naming the flag and what is allowed — it used
// to mean the default quietly; one given is taken; without one, the SLA
// file's logs.window, else an hour.
func TestWindow(t *testing.T) {
	none := &config.Config{}
	for _, w := range []time.Duration{-time.Hour, 0} {
		_, err := Window(none, w, true)
		require.Error(t, err, "%v", w)
		assert.Contains(t, err.Error(), "-window: "+w.String()+" is not a window: want from 1m0s to a week")
	}
	for _, tc := range []struct {
		cfg     *config.Config
		flagged time.Duration
		set     bool
		want    time.Duration
	}{
		{none, 15 * time.Minute, true, 15 * time.Minute},
		{none, 0, false, time.Hour},
		{&config.Config{Logs: config.Logs{Window: 24 * time.Hour}}, 0, false, 24 * time.Hour},
		{&config.Config{Logs: config.Logs{Window: 24 * time.Hour}}, time.Hour, true, time.Hour},
	} {
		got, err := Window(tc.cfg, tc.flagged, tc.set)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}
