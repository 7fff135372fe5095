package sample_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// realLine is a sample as llmsla writes it (golden/baseline.samples.jsonl),
// which every case below breaks in one key.
const realLine = `{"scenario":"chat","endpoint":"sim","model":"sim","level":"concurrency=2","run":"9cc509ef.1","seq":3,"id":"chatcmpl-sim-3","case":"chat-001","fixture_cases":36,"t0":"2026-11-30T15:14:55.141340746Z","offset_ns":265485,"connect_ns":163734,"reused":false,"ttfb_ns":766779,"ttft_ns":20353367,"ttfa_ns":20353367,"total_ns":40418053,"output_tokens":3,"prompt_tokens":43,"token_source":"usage","chunks":3,"itl":{"n":2,"sum_ns":20000000,"min_ns":9000000,"max_ns":11000000,"buckets":[1411,1,1417,1]},"finish":"stop","status":200,"content":"Positive"}`

// TestReadRefusesImpossibleSamples: a line holding what no request can
// measure is an error at file:line naming the key and what is allowed —
// for every reader alike (verdict, report and gate read through Read).
func TestReadRefusesImpossibleSamples(t *testing.T) {
	cases := map[string]struct{ old, new, want string }{
		"negative total":        {`"total_ns":40418053`, `"total_ns":-4000000000`, "total_ns: -4000000000 ns is a negative time"},
		"negative ttft":         {`"ttft_ns":20353367`, `"ttft_ns":-1`, "ttft_ns: -1 ns is a negative time"},
		"a week-long request":   {`"total_ns":40418053`, `"total_ns":604800000000000`, "total_ns: 168h0m0s is longer than any request"},
		"negative offset":       {`"offset_ns":265485`, `"offset_ns":-5`, "offset_ns: -5 ns is a negative time"},
		"ttft after total":      {`"total_ns":40418053`, `"total_ns":10000000`, "ttft_ns: 20.353367ms is after total_ns 10ms"},
		"ttft after ttfa":       {`"ttfa_ns":20353367`, `"ttfa_ns":20000000`, "ttft_ns: 20.353367ms is after ttfa_ns 20ms"},
		"headers after tokens":  {`"ttfb_ns":766779`, `"ttfb_ns":30000000`, "ttfb_ns: 30ms is after ttft_ns"},
		"ttfa without ttft":     {`"ttft_ns":20353367,`, ``, "ttft_ns: not set, but ttfa_ns is"},
		"connect beyond total":  {`"connect_ns":163734`, `"connect_ns":50000000`, "connect_ns: 50ms is longer than the whole request"},
		"tokens overflow":       {`"output_tokens":3`, `"output_tokens":9223372036854775807`, "output_tokens: 9223372036854775807 is out of range (allowed: 0 to 2^31)"},
		"negative tokens":       {`"prompt_tokens":43`, `"prompt_tokens":-43`, "prompt_tokens: -43 is out of range"},
		"itl not of its chunks": {`"chunks":3`, `"chunks":7`, "itl: 2 gaps for 7 chunks"},
		"itl longer than total": {`"sum_ns":20000000`, `"sum_ns":90000000`, "itl: min 9ms, max 11ms, sum 90ms in a request of 40.418053ms"},
		"forged error kind":     {`"finish":"stop"`, `"finish":"x","error_kind":"\u001b]0;pwned\u0007"`, `error_kind: "\x1b]0;pwned\a" is not an error kind (allowed: timeout_headers,`},
		"forged token source":   {`"token_source":"usage"`, `"token_source":"guess"`, `token_source: "guess" (allowed: usage, estimated)`},
		"status":                {`"status":200`, `"status":99999`, "status: 99999 is not an HTTP status"},
		"t0 in year 1":          {`"t0":"2026-11-30T15:14:55.141340746Z"`, `"t0":"0001-01-01T00:00:01Z"`, "t0: 0001-01-01T00:00:01Z is not when a request was sent"},
		"model with a newline":  {`"model":"sim"`, `"model":"m\nBenchmarkFake-2 1 1 ttft-p95-ms"`, `model: "m\nBenchmarkFake-2 1 1 ttft-p95-ms" holds a control character`},
		"endpoint with ESC":     {`"endpoint":"sim"`, `"endpoint":"\u001b[2J"`, `endpoint: "\x1b[2J" holds a control character`},
		"case id with a path":   {`"case":"chat-001"`, `"case":"../../etc/passwd"`, `case: "../../etc/passwd" holds a path separator`},
		"shard out of range":    {`"seq":3`, `"seq":3,"shard":"5/2"`, `shard: "5/2" is not a shard`},
		"cached beyond prompt":  {`"prompt_tokens":43`, `"prompt_tokens":43,"cached_tokens":44`, "cached_tokens: 44 of 43 prompt tokens"},
		"negative cached":       {`"prompt_tokens":43`, `"prompt_tokens":43,"cached_tokens":-1`, "cached_tokens: -1 of 43"},
		"tool call after end":   {`"total_ns":40418053`, `"total_ns":40418053,"ttftool_ns":50000000`, "ttftool_ns: 50ms is after tool_done_ns 0s or total_ns"},
		"tool done after end":   {`"total_ns":40418053`, `"total_ns":40418053,"tool_done_ns":50000000`, "tool_done_ns: 50ms is after total_ns"},
		"tool name with ESC":    {`"seq":3`, `"seq":3,"tool_calls":[{"index":0,"name":"\u001b]52;c;x\u0007","arguments":"{}"}]`, `tool_calls[0].name: "\x1b]52;c;x\a" holds a control character`},
		"negative usage tokens": {`"chunks":3`, `"chunks":3,"usage_tokens":-2`, "usage_tokens: -2 is out of range"},
		"forged reasoning src":  {`"seq":3`, `"seq":3,"reasoning_source":"magic"`, `reasoning_source: "magic" (allowed: usage, chunks, inferred)`},
		"step without session":  {`"seq":3`, `"seq":3,"step":2`, "step: 2 without a session"},
		"step beyond max_steps": {`"seq":3`, `"seq":3,"session":"9cc509ef.1/3","step":101`, "step: 101 is out of range (allowed: 1 to 100"},
		"negative step":         {`"seq":3`, `"seq":3,"session":"9cc509ef.1/3","step":-1`, "step: -1 is out of range"},
		"session with ESC":      {`"seq":3`, `"seq":3,"session":"\u001b[2J","step":1`, `session: "\x1b[2J" holds a control character`},
		"unknown cache policy":  {`"seq":3`, `"seq":3,"cache":"cold"`, `cache: "cold" is not a cache policy (allowed: natural, bust, warm)`},
	}
	dir := t.TempDir()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			require.Contains(t, realLine, tc.old)
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".samples.jsonl")
			body := realLine + "\n" + strings.Replace(realLine, tc.old, tc.new, 1) + "\n"
			require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
			_, err := sample.Read(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+":2: "+tc.want)
			_, _, err = sample.ReadAll([]string{p}, true)
			assert.ErrorContains(t, err, p+":2: ")
		})
	}
	p := filepath.Join(dir, "real.samples.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(realLine+"\n"), 0o644))
	s, err := sample.Read(p)
	require.NoError(t, err, "the real line is a sample")
	require.Len(t, s, 1)
}

// TestReadsWhatLlmslaWrote: every samples file in the repository (the
// baseline a gate compares with) passes the checks.
func TestReadsWhatLlmslaWrote(t *testing.T) {
	files, _ := filepath.Glob("../../golden/*.samples.jsonl")
	require.NotEmpty(t, files)
	for _, f := range files {
		s, err := sample.Read(f)
		require.NoError(t, err)
		assert.NotEmpty(t, s)
	}
}

// TestCheckMeasured: samples holding only warm-up, cold first requests or
// capacity-search steps measured nothing a verdict judges; said, counted.
func TestCheckMeasured(t *testing.T) {
	warm := sample.Sample{Warmup: true}
	cold := sample.Sample{Cold: true}
	step := sample.Sample{Level: "search=capacity/rate=40"}
	real := sample.Sample{Level: "concurrency=1"}
	for name, tc := range map[string]struct {
		samples []sample.Sample
		want    string
	}{
		"warm-up only":      {[]sample.Sample{warm, warm}, "the 2 samples are 2 warm-up requests only"},
		"cold and warm-up":  {[]sample.Sample{cold, warm}, "1 warm-up request and 1 cold first request only"},
		"search steps only": {[]sample.Sample{step, warm}, "1 warm-up request and 1 capacity-search step (llmsla capacity reads them) only"},
		"none":              {nil, "no samples"},
		"one measured":      {[]sample.Sample{warm, step, real}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			err := sample.CheckMeasured(tc.samples)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, sample.ErrNothingMeasured)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestCheckShardsOneProcessOneShard: one process's samples claiming several
// shards are not the files of several machines.
func TestCheckShardsOneProcessOneShard(t *testing.T) {
	s := func(shard, run string) sample.Sample { return sample.Sample{Shard: shard, Run: run} }
	err := sample.CheckShards([]sample.Sample{s("0/3", "9cc509ef.1"), s("1/3", "9cc509ef.1"), s("2/3", "9cc509ef.2")})
	assert.ErrorContains(t, err, "process 9cc509ef sent shards 0/3, 1/3, 2/3: one process sends one shard")
	assert.NoError(t, sample.CheckShards([]sample.Sample{s("0/3", "a.1"), s("1/3", "b.1"), s("2/3", "c.1"), s("2/3", "c.2")}))
}

// TestCheckShardsForgedCount: a shard count far beyond the files given
// names the first missing shards and how many more, without listing (or
// allocating for) every one.
func TestCheckShardsForgedCount(t *testing.T) {
	err := sample.CheckShards([]sample.Sample{{Shard: "0/2000000000", Run: "a.1"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shard 1/2000000000, 2/2000000000,")
	assert.Contains(t, err.Error(), "10/2000000000, and 1999999989 more missing: a run of 2000000000 shards, samples given for 0/2000000000 only")
	allocs := testing.AllocsPerRun(3, func() { sample.CheckShards([]sample.Sample{{Shard: "0/2000000000", Run: "a.1"}}) })
	assert.Less(t, allocs, 200.0, "allocations grow with the shards given, not with N")
}
