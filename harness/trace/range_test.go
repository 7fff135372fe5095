package trace_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/trace"
)

// azure is an Azure trace of rows at these instants.
func azure(stamps ...string) string {
	var b strings.Builder
	b.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
	for _, s := range stamps {
		b.WriteString(s + ",374,44\n")
	}
	return b.String()
}

// TestTimestampRange: a date is held as nanoseconds from the Unix epoch
// in 64 bits, 1970-01-01 to 2262-04-11; a row outside is refused where it
// is read, naming the date as the file writes it and its line — never
// wrapped into another date (a sorted trace crossing 2262-04-11 read as
// unsorted, 0001 → 9999 read as 61 years).
func TestTimestampRange(t *testing.T) {
	azureSpec := trace.Spec{Format: trace.AzureCSV}
	cases := map[string]struct {
		spec trace.Spec
		text string
		err  string // "" for none
		span time.Duration
	}{
		"azure crossing 2262-04-11": {spec: azureSpec, text: azure("2262-04-11 23:47:16", "2262-04-12 00:00:00"),
			err: `trace:3: TIMESTAMP: "2262-04-12 00:00:00" is after 2262-04-11T23:47:16Z`},
		"azure 0001 to 9999": {spec: azureSpec, text: azure("0001-01-01 00:00:00", "9999-12-31 23:59:59"),
			err: `trace:2: TIMESTAMP: "0001-01-01 00:00:00" is before 1970-01-01T00:00:00Z`},
		"azure 9999 after a good row": {spec: azureSpec, text: azure("2023-11-16 18:15:46", "9999-12-31 23:59:59"),
			err: `trace:3: TIMESTAMP: "9999-12-31 23:59:59" is after`},
		"azure 1969": {spec: azureSpec, text: azure("1969-12-31 23:59:59", "1970-01-01 00:00:01"),
			err: `trace:2: TIMESTAMP: "1969-12-31 23:59:59" is before 1970-01-01T00:00:00Z`},
		// The whole range is readable: 292 years between two rows.
		"azure from the epoch to the last nanosecond": {spec: azureSpec, text: azure("1970-01-01 00:00:00", "2262-04-11 23:47:16.854775807"),
			span: time.Duration(1<<63 - 1)},
		"jsonl rfc3339 with a zone past the range": {spec: trace.Spec{Format: trace.JSONL, Columns: trace.Columns{Unit: trace.DateTime}},
			text: `{"timestamp": "2262-04-12T01:00:00+02:00", "input_length": 1, "output_length": 1}` + "\n" +
				`{"timestamp": "2262-04-12T00:00:00+00:00", "input_length": 1, "output_length": 1}`,
			err: `trace:2: timestamp: "2262-04-12T00:00:00+00:00" is after`},
		"mooncake ms past the range": {spec: trace.Spec{Format: trace.Mooncake},
			text: `{"timestamp": 9223372036855, "input_length": 1, "output_length": 1}`,
			err:  `trace:1: timestamp: "9223372036855" is not a timestamp in ms from 0 to 9223372036854`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, offs, err := rows(t, tc.text, tc.spec)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.NotContains(t, err.Error(), "sorted", "a date outside the range is not an order error")
				return
			}
			require.NoError(t, err)
			require.Len(t, got, 2)
			assert.Equal(t, tc.span, offs[1])
		})
	}
}

// TestLogTimestampRange: a log's dates are read with the trace's rules:
// one outside the range is refused naming it as written and its line, and
// one in the range but outside the years a request can have been sent in
// is refused by the sample's check with the real date.
func TestLogTimestampRange(t *testing.T) {
	line := func(ts string) string {
		return `{"event": "llm_latency", "endpoint": "chat", "model": "m", "ttft_ms": 100, "tpot_ms": 10, "output_tokens": 5, "timestamp": "` + ts + `"}` + "\n"
	}
	for name, tc := range map[string]struct{ text, err string }{
		"after 2262": {line("2026-11-30T10:00:00Z") + line("2300-01-01T00:00:00Z"), `log:2: timestamp: "2300-01-01T00:00:00Z" is after 2262-04-11T23:47:16Z`},
		"year 1":     {line("0001-01-01T00:00:00Z"), `log:1: timestamp: "0001-01-01T00:00:00Z" is before 1970-01-01T00:00:00Z`},
		"year 2250":  {line("2250-01-01T00:00:00Z"), `log:1: t0: 2250-01-01T00:00:00Z is not when a request was sent`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := trace.LogSamples([]string{write(t, "log", tc.text)}, trace.DefaultLogFields(), time.Hour)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// TestCheckWindow: the windows a log is judged in, for verdict -log, gate
// -log and logs.window alike; zero and negative ones are refused, never
// taken for the default.
func TestCheckWindow(t *testing.T) {
	for w, ok := range map[time.Duration]bool{
		-time.Hour: false, 0: false, -1: false, 59 * time.Second: false, 7 * time.Minute: false, 8 * 24 * time.Hour: false,
		36 * time.Hour: false, time.Minute: true, 15 * time.Minute: true, time.Hour: true, 24 * time.Hour: true, 48 * time.Hour: true,
	} {
		err := trace.CheckWindow(w)
		if ok {
			assert.NoError(t, err, "%v", w)
			continue
		}
		if assert.Error(t, err, "%v", w) {
			assert.Contains(t, err.Error(), w.String()+" is not a window: want from 1m0s to a week")
		}
	}
	_, err := trace.LogSamples([]string{"/nonexistent"}, trace.DefaultLogFields(), -time.Hour)
	assert.ErrorContains(t, err, "-1h0m0s is not a window", "the window is checked before the log is read")
}
