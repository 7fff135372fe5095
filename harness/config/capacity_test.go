package config

import (
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/capacity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// search loads an SLA file as Load does (nothing else of the environment)
// and returns chat's capacity search on endpoint s with llmsla capacity's
// flags (key=value, comma-separated) on top.
func search(t *testing.T, file, flags string) (Capacity, error) {
	t.Helper()
	t.Setenv(EnvConfig, writeConfig(t, file))
	t.Setenv(EnvEndpoints, "")
	cfg, err := Load()
	if err != nil {
		return Capacity{}, err
	}
	var set []string
	if flags != "" {
		set = strings.Split(flags, ",")
	}
	return cfg.SearchCapacity("chat", "s", set)
}

const capEndpoint = "endpoints:\n  s: {sim: \"\"}\n"

// TestCapacitySettings: a capacity: block and llmsla capacity's flags are
// read by the same rules — the same bounds, the same default maximum for a
// search by concurrency, a maximum written in the file kept when the flags
// change only by.
func TestCapacitySettings(t *testing.T) {
	conc := func(max float64) Capacity {
		return Capacity{By: "concurrency", Options: capacity.Options{Start: 1, Max: max, Resolution: 0.1, Repeats: 1, Integer: true}}
	}
	for name, tc := range map[string]struct {
		block, env string
		want       Capacity
	}{
		"by concurrency in the file":         {"{by: concurrency}", "", conc(1024)},
		"by concurrency in the flags":        {"", "by=concurrency", conc(1024)},
		"the file's max kept":                {"{by: concurrency, max: 1000}", "by=concurrency", conc(1000)},
		"max before by":                      {"{max: 64, by: concurrency}", "", conc(64)},
		"back to rate":                       {"{by: concurrency}", "by=rate", DefaultCapacity()},
		"flags on top of the file's repeats": {"{repeats: 3}", "max=50", func() Capacity { c := DefaultCapacity(); c.Repeats, c.Max = 3, 50; return c }()},
	} {
		t.Run(name, func(t *testing.T) {
			file := capEndpoint
			if tc.block != "" {
				file += "scenarios:\n  chat:\n    capacity: " + tc.block + "\n"
			}
			got, err := search(t, file, tc.env)
			require.NoError(t, err)
			assert.Equal(t, tc.want.By, got.By)
			assert.Equal(t, tc.want.Options, got.Options)
		})
	}
}

// TestCapacityErrors: a setting the search cannot use is an error before
// any request, whether written in the file (at file:line: key) or given as
// a flag of llmsla capacity (naming the flag) — never truncated
// (repeats=1.5 once ran 1) or unbounded.
func TestCapacityErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		block, env string
		want       string
	}{
		"file repeats not whole":    {"{repeats: 1.5}", "", `:5: scenarios.chat.capacity.repeats: "1.5" is not a whole number from 1 to 100`},
		"flag repeats not whole":    {"", "repeats=1.5", `-repeats: "1.5" is not a whole number from 1 to 100`},
		"flag repeats too many":     {"", "repeats=1000", `-repeats: "1000" is not a whole number from 1 to 100`},
		"flag by unknown":           {"", "by=tokens", `-by: "tokens": want rate, concurrency or speedup`},
		"file by unknown":           {"{by: tokens}", "", `:5: scenarios.chat.capacity.by: "tokens": want rate, concurrency or speedup`},
		"flag max infinite":         {"", "max=inf", `-max: "inf" is not a number`},
		"flag unknown key":          {"", "step=2", `-step: unknown key (allowed: by, start, max, resolution, repeats)`},
		"file concurrency of 1.5":   {"{by: concurrency, start: 1.5}", "", `:5: scenarios.chat.capacity: start 1.5: want a whole number`},
		"flag concurrency too high": {"", "by=concurrency,max=1e9", `max 1e+09: want at most 100000`},
	} {
		t.Run(name, func(t *testing.T) {
			file := capEndpoint
			if tc.block != "" {
				file += "scenarios:\n  chat:\n    capacity: " + tc.block + "\n"
			}
			_, err := search(t, file, tc.env)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
