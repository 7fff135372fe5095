package trace_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/trace"
)

// moon is a Mooncake row.
func moon(ts string) string {
	return `{"timestamp": ` + ts + `, "input_length": 6, "output_length": 2}`
}

// TestHostileTrace: what a careless exporter or an attacker puts in a
// trace — overlong lines, NUL and control characters, escapes, bytes that
// are not UTF-8, numbers that overflow or are not numbers, duplicated
// keys and columns, deep nesting, a file cut mid-record, CRLF, a BOM — is
// read as the file means it or refused naming the file and line, with
// the value escaped in the message; never read as something else.
func TestHostileTrace(t *testing.T) {
	mooncake := trace.Spec{Format: trace.Mooncake}
	csvSpec := trace.Spec{Format: trace.CSV, Columns: trace.Columns{Timestamp: "t", Unit: trace.Seconds, Input: "in", Output: "out"}}
	nanos := trace.Spec{Format: trace.JSONL, Columns: trace.Columns{Unit: trace.Nanos}}
	cases := map[string]struct {
		spec trace.Spec
		text string
		err  string        // a part of the error; "" when the file reads
		rows int           // rows read when it does
		last time.Duration // the last row's offset when it does
		not  []string      // what the error must not hold
	}{
		"overlong line": {spec: mooncake, text: moon("0") + "\n" + `{"timestamp": 1, "x": "` + strings.Repeat("a", trace.MaxLine) + `"}`,
			err: "trace:2: line longer than 4194304 bytes"},
		"NUL in a JSON line":      {spec: mooncake, text: moon("0") + "\n" + `{"timestamp": 1,` + "\x00" + ` "input_length": 6, "output_length": 2}`, err: "trace:2: not a JSON object", not: []string{"\x00"}},
		"NUL in a CSV cell":       {spec: csvSpec, text: "t,in,out\n1\x00,2,3\n", err: `trace:2: t: "1\x00" is not a timestamp`, not: []string{"\x00"}},
		"ESC in a JSON line":      {spec: mooncake, text: "\x1b]0;pwned\x07" + moon("0"), err: "trace:1: not a JSON object", not: []string{"\x1b", "\x07"}},
		"ESC in a CSV header":     {spec: csvSpec, text: "\x1b[2Jt,in,out\n1,2,3\n", err: `trace:1: header has no column "t" (columns: "\x1b[2Jt", "in", "out")`, not: []string{"\x1b"}},
		"ESC in a timestamp cell": {spec: csvSpec, text: "t,in,out\n\x1b[31m1,2,3\n", err: `trace:2: t: "\x1b[31m1" is not a timestamp`, not: []string{"\x1b"}},
		"bytes not UTF-8 in a cell": {spec: csvSpec, text: "t,in,out\n1,\xff\xfe,3\n", err: `trace:2: in: "\xff\xfe" is not a length`,
			not: []string{"\xff"}},
		"bidi control in a cell": {spec: csvSpec, text: "t,in,out\n1,\u202e9,3\n", err: `trace:2: in: "\u202e9" is not a length`, not: []string{"\u202e"}},
		"NaN timestamp":          {spec: csvSpec, text: "t,in,out\nNaN,2,3\n", err: `trace:2: t: "NaN" is not a timestamp in s`},
		"Inf timestamp":          {spec: csvSpec, text: "t,in,out\n+Inf,2,3\n", err: `trace:2: t: "+Inf" is not a timestamp in s`},
		"hex timestamp":          {spec: csvSpec, text: "t,in,out\n0x10,2,3\n", err: `trace:2: t: "0x10" is not a timestamp in s`},
		"underscored timestamp":  {spec: csvSpec, text: "t,in,out\n1_000,2,3\n", err: `trace:2: t: "1_000" is not a timestamp in s`},
		"negative timestamp":     {spec: mooncake, text: moon("-1"), err: `trace:1: timestamp: "-1" is not a timestamp in ms`},
		"overflowing timestamp":  {spec: mooncake, text: moon("1e400"), err: `trace:1: timestamp: "1e400" is not a timestamp in ms`},
		"exact Unix nanoseconds": {spec: nanos, text: moon("1700000000000000000") + "\n" + moon("1700000000000000001"), rows: 2, last: 1},
		"a float length":         {spec: mooncake, text: `{"timestamp": 0, "input_length": 6.5, "output_length": 2}`, err: `trace:1: input_length: "6.5" is not a length`},
		"an overflowing length":  {spec: mooncake, text: `{"timestamp": 0, "input_length": 99999999999999999999, "output_length": 2}`, err: `trace:1: input_length: "99999999999999999999" is not a length`},
		"a length as a string":   {spec: mooncake, text: `{"timestamp": 0, "input_length": "6", "output_length": 2}`, rows: 1},
		"an overflowing hash":    {spec: mooncake, text: `{"timestamp": 0, "input_length": 6, "output_length": 2, "hash_ids": [1e30]}`, err: "trace:1: hash_ids: not a list of whole numbers"},
		"too many hashes": {spec: mooncake, text: `{"timestamp": 0, "input_length": 6, "output_length": 2, "hash_ids": [` + strings.Repeat("1,", trace.MaxHashes) + `1]}`,
			err: "trace:1: hash_ids: 16385 hashes, more than 16384"},
		"duplicated timestamp key": {spec: mooncake, text: moon("0") + "\n" + `{"timestamp": 5, "input_length": 6, "output_length": 2, "timestamp": 1}`,
			err: "trace:2: timestamp: given twice"},
		"duplicated length key, escaped": {spec: mooncake, text: `{"timestamp": 0, "input_length": 6, "output_length": 2, "output_\u006cength": 900}`,
			err: "trace:1: output_length: given twice"},
		"duplicated CSV column": {spec: csvSpec, text: "t,in,out,out\n1,2,3,4\n", err: `trace:1: header: column "out" twice`},
		"deep nesting": {spec: mooncake, text: `{"timestamp": 0, "input_length": 6, "output_length": 2, "x": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}",
			err: "trace:1: not a JSON object"},
		"cut mid-record":     {spec: mooncake, text: moon("0") + "\n" + `{"timestamp": 5, "input_len`, err: "trace:2: not a JSON object"},
		"CSV cut mid-quote":  {spec: csvSpec, text: "t,in,out,note\n1,2,3,\"a, b\n", err: "trace:2: not a CSV row"},
		"CSV cut mid-row":    {spec: csvSpec, text: "t,in,out\n1,2,3\n2,2", err: "trace:3: 2 cells, the header has 3"},
		"CRLF":               {spec: mooncake, text: moon("0") + "\r\n" + moon("10") + "\r\n", rows: 2, last: 10 * time.Millisecond},
		"a BOM before JSONL": {spec: mooncake, text: "\ufeff" + moon("0") + "\n" + moon("10") + "\n", rows: 2, last: 10 * time.Millisecond},
		"a BOM before CSV":   {spec: csvSpec, text: "\ufefft,in,out\n1,2,3\n", rows: 1},
		"a BOM on a later line": {spec: mooncake, text: moon("0") + "\n\ufeff" + moon("10") + "\n",
			err: "trace:2: not a JSON object"},
		"an array row": {spec: mooncake, text: `[0, 6, 2]`, err: "trace:1: not a JSON object: want an object, one row a line"},
		"a role with an escape": {spec: trace.Spec{Format: trace.JSONL, Columns: trace.Columns{Output: "max_tokens", Messages: "messages"}},
			text: `{"timestamp": 1, "max_tokens": 7, "messages": [{"role": "", "content": "x"}]}`, err: "trace:1: messages[0]: no role"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, offs, err := rows(t, tc.text, tc.spec)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				for _, n := range tc.not {
					assert.NotContains(t, err.Error(), n, "written raw in the message")
				}
				return
			}
			require.NoError(t, err)
			require.Len(t, got, tc.rows)
			assert.Equal(t, tc.last, offs[len(offs)-1])
		})
	}
}

// TestSynthBounds: a rescaling whose offsets do not fit a Duration (a
// slow-down of a long trace) is refused naming the row, never written
// wrapped into negative or earlier timestamps.
func TestSynthBounds(t *testing.T) {
	p := write(t, "t.jsonl", moon("0")+"\n"+moon("86400000")+"\n") // a day
	var out bytes.Buffer
	_, err := trace.Synth(trace.Spec{File: p, Format: trace.Mooncake}, trace.Rescale{Speedup: 1e-6, InputScale: 1, OutputScale: 1, Subsample: 1}, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "t.jsonl:2:")
	assert.Contains(t, err.Error(), "speedup 1e-06")
	assert.NotContains(t, out.String(), "-")
	n, err := trace.Synth(trace.Spec{File: p, Format: trace.Mooncake}, trace.Rescale{Speedup: 0.5, InputScale: 1, OutputScale: 1, Subsample: 1}, &out)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Contains(t, out.String(), `"timestamp": 172800000,`)
}

// TestHostileLog: a production log's lines as a careless logger or an
// attacker writes them are read as meant or refused naming the file and
// line, never read as another request: a tpot × tokens that overflows, a
// field given twice, names that would forge output, numbers that are not
// numbers, a BOM, CRLF, a line cut short.
func TestHostileLog(t *testing.T) {
	req := func(extra string) string {
		return `{"event": "llm_latency", "endpoint": "chat", "model": "m", "ttft_ms": 100, "output_tokens": 5, "timestamp": "2026-11-30T10:00:00Z"` + extra + "}"
	}
	cases := map[string]struct {
		text  string
		err   string
		not   []string
		total time.Duration // of the first request, when the log reads
	}{
		// 2^44 ns per token × 2^20 tokens is 2^64 ns: a wrapped product
		// read the request as lasting its ttft.
		"tpot × tokens overflows": {text: `{"event": "llm_latency", "endpoint": "chat", "model": "m", "ttft_ms": 100, "tpot_ms": 17592186.044416, "output_tokens": 1048577, "timestamp": "2026-11-30T10:00:00Z"}`,
			err: "log:1: total: ttft_ms + tpot_ms × (output_tokens − 1) is longer than 24h0m0s"},
		"tpot × tokens within a day":   {text: req(`, "tpot_ms": 20`), total: 180 * time.Millisecond},
		"ttft given twice":             {text: req(`, "tpot_ms": 20, "ttft_ms": 9000`), err: "log:1: ttft_ms: given twice"},
		"event given twice":            {text: `{"event": "startup", "event": "llm_latency", "endpoint": "chat", "model": "m", "ttft_ms": 1, "tpot_ms": 1, "output_tokens": 5, "timestamp": "2026-11-30T10:00:00Z"}`, err: "log:1: event: given twice"},
		"a field of no interest twice": {text: req(`, "tpot_ms": 20, "level": "info", "level": "warn"`), total: 180 * time.Millisecond},
		"an ANSI escape in a name": {text: strings.Replace(req(`, "tpot_ms": 20`), `"chat"`, `"chat\u001b]0;pwned\u0007"`, 1),
			err: `log:1: scenario: "chat\x1b]0;pwned\a" holds a control character`, not: []string{"\x1b", "\a"}},
		"a newline in a model": {text: strings.Replace(req(`, "tpot_ms": 20`), `"m"`, `"m\nBenchmarkFake 1 1 ns/op"`, 1),
			err: `log:1: endpoint: "m\nBenchmarkFake 1 1 ns/op" holds a control character`, not: []string{"\nBenchmark"}},
		"NaN ttft":         {text: strings.Replace(req(`, "tpot_ms": 20`), `100`, `"NaN"`, 1), err: "log:1: ttft_ms: missing, or not a time in ms ≥ 0"},
		"negative ttft":    {text: strings.Replace(req(`, "tpot_ms": 20`), `100`, `-1`, 1), err: "log:1: ttft_ms: missing, or not a time in ms ≥ 0"},
		"a ttft of a year": {text: strings.Replace(req(`, "tpot_ms": 20`), `100`, `31536000000`, 1), err: "log:1: ttft_ms: missing, or not a time in ms ≥ 0"},
		"tokens past the bound": {text: strings.Replace(req(`, "tpot_ms": 20`), `"output_tokens": 5`, `"output_tokens": 1e9`, 1),
			err: `log:1: output_tokens: "1e9" is not a length in tokens`},
		"total before ttft": {text: req(`, "total_ms": 50`), err: "log:1: ttft_ns: 100ms is after total_ns 50ms"},
		"NUL in a line":     {text: req(`, "tpot_ms": 20`) + "\n" + "{\"event\": \x00}", err: "log:2: not a JSON object"},
		"cut mid-record":    {text: req(`, "tpot_ms": 20`) + "\n" + `{"event": "llm_latency", "endpoint": "ch`, err: "log:2: not a JSON object"},
		"a BOM":             {text: "\ufeff" + req(`, "tpot_ms": 20`) + "\n", total: 180 * time.Millisecond},
		"CRLF":              {text: req(`, "tpot_ms": 20`) + "\r\n" + req(`, "tpot_ms": 20`) + "\r\n", total: 180 * time.Millisecond},
		"an overlong line":  {text: req(`, "tpot_ms": 20, "x": "` + strings.Repeat("a", trace.MaxLine) + `"`), err: "log:1: line longer than"},
		"an error message with an escape, kept as data": {text: `{"event": "llm_latency", "endpoint": "chat", "model": "m", "error": "upstream \u001b[2J 503", "timestamp": "2026-11-30T10:00:00Z"}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ss, err := trace.LogSamples([]string{write(t, "log", tc.text)}, trace.DefaultLogFields(), time.Hour)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				for _, n := range tc.not {
					assert.NotContains(t, err.Error(), n, "written raw in the message")
				}
				return
			}
			require.NoError(t, err)
			require.NotEmpty(t, ss)
			for _, s := range ss {
				require.NoError(t, s.Check(), "a sample the reader keeps passes the samples file's check")
			}
			assert.Equal(t, tc.total, ss[0].Total)
		})
	}
}
