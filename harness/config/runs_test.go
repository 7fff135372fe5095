package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLevelEvery: a slot per run needs a duration > 0 and the start the
// slots count from; either missing is an error naming the variable.
func TestLevelEvery(t *testing.T) {
	for name, tc := range map[string]struct{ start, every, want string }{
		"not a duration": {"2026-12-01T10:00:00Z", "30", `LLMSLA_LEVEL_EVERY: "30" is not a duration > 0 (e.g. 30s)`},
		"zero":           {"2026-12-01T10:00:00Z", "0s", `LLMSLA_LEVEL_EVERY: "0s" is not a duration > 0`},
		"no start":       {"", "30s", "LLMSLA_LEVEL_EVERY=30s: the slots count from the agreed start: set LLMSLA_START_AT (-start-at) too"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(EnvStartAt, tc.start)
			t.Setenv(EnvLevelEvery, tc.every)
			_, err := loadEnvKeep(t, capEndpoint)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Setenv(EnvStartAt, "2026-12-01T10:00:00Z")
	t.Setenv(EnvLevelEvery, "30s")
	c, err := loadEnvKeep(t, capEndpoint)
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, c.LevelEvery)
}

// loadEnvKeep loads an SLA file with the shard variables of the test's
// environment, the others cleared.
func loadEnvKeep(t *testing.T, file string) (*Config, error) {
	t.Helper()
	t.Setenv(EnvConfig, writeConfig(t, file))
	for _, k := range []string{EnvEndpoints, EnvCapacity, EnvShard, EnvShards, "JOB_COMPLETION_INDEX"} {
		t.Setenv(k, "")
	}
	return Load()
}
