package config

import (
	"testing"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadEnv loads an SLA file as Load does, with $LLMSLA_CAPACITY and
// $LLMSLA_SHARD as given and nothing else of the environment.
func loadEnv(t *testing.T, file, capacitySpec, shard string) (*Config, error) {
	t.Helper()
	t.Setenv(EnvConfig, writeConfig(t, file))
	for k, v := range map[string]string{EnvEndpoints: "", EnvCapacity: capacitySpec, EnvShard: shard, EnvShards: "",
		"JOB_COMPLETION_INDEX": "", EnvStartAt: "", EnvLevelEvery: ""} {
		t.Setenv(k, v)
	}
	return Load()
}

const capEndpoint = "endpoints:\n  s: {sim: \"\"}\n"

// TestCapacitySettings: a capacity: block and $LLMSLA_CAPACITY are read by
// the same rules — the same bounds, the same default maximum for a search
// by concurrency, a maximum written in the file kept when the environment
// changes only by.
func TestCapacitySettings(t *testing.T) {
	conc := func(max float64) Capacity {
		return Capacity{By: "concurrency", Options: capacity.Options{Start: 1, Max: max, Resolution: 0.1, Repeats: 1, Integer: true}}
	}
	for name, tc := range map[string]struct {
		block, env string
		want       Capacity
	}{
		"by concurrency in the file":       {"{by: concurrency}", "", conc(1024)},
		"by concurrency in the env":        {"", "chat:by=concurrency", conc(1024)},
		"the file's max kept":              {"{by: concurrency, max: 1000}", "chat:by=concurrency", conc(1000)},
		"max before by":                    {"{max: 64, by: concurrency}", "", conc(64)},
		"back to rate":                     {"{by: concurrency}", "chat:by=rate", DefaultCapacity()},
		"env on top of the file's repeats": {"{repeats: 3}", "chat:max=50", func() Capacity { c := DefaultCapacity(); c.Repeats, c.Max = 3, 50; return c }()},
	} {
		t.Run(name, func(t *testing.T) {
			file := capEndpoint
			if tc.block != "" {
				file += "scenarios:\n  chat:\n    capacity: " + tc.block + "\n"
			}
			cfg, err := loadEnv(t, file, tc.env, "")
			require.NoError(t, err)
			got := *cfg.Scenario("chat", "s").Capacity
			assert.Equal(t, tc.want.By, got.By)
			assert.Equal(t, tc.want.Options, got.Options)
		})
	}
}

// TestCapacityErrors: a setting the search cannot use is an error before
// any request, whether written in the file (at file:line: key) or in
// $LLMSLA_CAPACITY — never truncated (repeats=1.5 once ran 1) or unbounded.
func TestCapacityErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		block, env string
		want       string
	}{
		"file repeats not whole":   {"{repeats: 1.5}", "", `:5: scenarios.chat.capacity.repeats: "1.5" is not a whole number from 1 to 100`},
		"env repeats not whole":    {"", "chat:repeats=1.5", `LLMSLA_CAPACITY: repeats: "1.5" is not a whole number from 1 to 100`},
		"env repeats too many":     {"", "chat:repeats=1000", `LLMSLA_CAPACITY: repeats: "1000" is not a whole number from 1 to 100`},
		"env by unknown":           {"", "chat:by=tokens", `LLMSLA_CAPACITY: by: "tokens": want rate or concurrency`},
		"file by unknown":          {"{by: tokens}", "", `:5: scenarios.chat.capacity.by: "tokens": want rate or concurrency`},
		"env max infinite":         {"", "chat:max=inf", `LLMSLA_CAPACITY: max: "inf" is not a number`},
		"env unknown key":          {"", "chat:step=2", `LLMSLA_CAPACITY: step: unknown key (allowed: by, start, max, resolution, repeats)`},
		"env no value":             {"", "chat:max", `LLMSLA_CAPACITY: "max": want key=value`},
		"file concurrency of 1.5":  {"{by: concurrency, start: 1.5}", "", `:5: scenarios.chat.capacity: start 1.5: want a whole number`},
		"env concurrency too high": {"", "chat:by=concurrency,max=1e9", `LLMSLA_CAPACITY: max 1e+09: want at most 100000`},
	} {
		t.Run(name, func(t *testing.T) {
			file := capEndpoint
			if tc.block != "" {
				file += "scenarios:\n  chat:\n    capacity: " + tc.block + "\n"
			}
			_, err := loadEnv(t, file, tc.env, "")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestCapacityNotSharded: a capacity search in a sharded run is refused
// before any request, whether the file's capacity: block or
// $LLMSLA_CAPACITY asks for it: each shard would search on its share of
// the load, and the limit found would be no machine's.
func TestCapacityNotSharded(t *testing.T) {
	_, err := loadEnv(t, capEndpoint+"scenarios:\n  chat:\n    concurrency: [2, 4]\n    capacity: {by: concurrency}\n", "", "0/2")
	require.Error(t, err)
	assert.Regexp(t, `sla\.yaml:6: scenarios\.chat\.capacity: a capacity search cannot be sharded: run it on one machine.*\(this is shard 0/2\)$`, err.Error())

	_, err = loadEnv(t, capEndpoint, "chat:by=concurrency", "1/2")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shard 1/2: LLMSLA_CAPACITY=chat:by=concurrency: a capacity search cannot be sharded: run it on one machine")

	_, err = loadEnv(t, capEndpoint+"scenarios:\n  chat:\n    concurrency: [2, 4]\n", "", "0/2")
	assert.NoError(t, err, "a sharded run without a search")
}
