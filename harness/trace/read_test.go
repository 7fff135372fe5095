package trace_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/trace"
)

// write puts text in a file of the test's and returns its path.
func write(t testing.TB, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rows reads every row of a spec over text.
func rows(t *testing.T, text string, spec trace.Spec) ([]trace.Row, []time.Duration, error) {
	t.Helper()
	spec.File = write(t, "trace", text)
	var out []trace.Row
	var offs []time.Duration
	err := trace.Each(spec, func(r trace.Row, off time.Duration) error {
		out = append(out, r)
		offs = append(offs, off)
		return nil
	})
	return out, offs, err
}

// TestFormats reads each format, its good rows and its bad ones: a bad
// row is an error naming the file's line and what is wrong.
func TestFormats(t *testing.T) {
	structlog := trace.Columns{Timestamp: "timestamp", Unit: trace.DateTime, Input: "prompt_tokens", Output: "output_tokens"}
	cases := map[string]struct {
		spec    trace.Spec
		text    string
		inputs  []int
		outputs []int
		offs    []time.Duration
		hashes  int // of the first row
		err     string
	}{
		"mooncake": {spec: trace.Spec{Format: trace.Mooncake},
			text:   `{"timestamp": 0, "input_length": 600, "output_length": 20, "hash_ids": [0, 1]}` + "\n\n" + `{"timestamp": 1500, "input_length": 100, "output_length": 5, "hash_ids": [0]}` + "\n",
			inputs: []int{600, 100}, outputs: []int{20, 5}, offs: []time.Duration{0, 1500 * time.Millisecond}, hashes: 2},
		"mooncake bad output": {spec: trace.Spec{Format: trace.Mooncake},
			text: `{"timestamp": 0, "input_length": 6, "output_length": 2}` + "\n" + `{"timestamp": 5, "input_length": 6, "output_length": 0}`,
			err:  ":2: output_length: \"0\" is not a length in tokens"},
		"mooncake not JSON": {spec: trace.Spec{Format: trace.Mooncake},
			text: `{"timestamp": 0, "input_length": 6, "output_length": 2}` + "\n" + `{"timestamp": 5,`,
			err:  ":2: not a JSON object"},
		"mooncake missing timestamp": {spec: trace.Spec{Format: trace.Mooncake},
			text: `{"input_length": 6, "output_length": 2}`, err: ":1: timestamp: missing"},
		"mooncake bad hashes": {spec: trace.Spec{Format: trace.Mooncake},
			text: `{"timestamp": 1, "input_length": 6, "output_length": 2, "hash_ids": "x"}`, err: ":1: hash_ids: not a list"},
		"mooncake unsorted": {spec: trace.Spec{Format: trace.Mooncake},
			text: `{"timestamp": 10, "input_length": 6, "output_length": 2}` + "\n" + `{"timestamp": 20, "input_length": 6, "output_length": 2}` + "\n" +
				`{"timestamp": 15, "input_length": 6, "output_length": 2}` + "\n" + `{"timestamp": 12, "input_length": 6, "output_length": 2}`,
			err: ":3: timestamp 15ms is before line 2's 20ms: a trace must be sorted by time, and this is its first row out of order"},
		"azure": {spec: trace.Spec{Format: trace.AzureCSV},
			text:   "TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:15:46.6805900,374,44\r\n2023-11-16 18:15:50.9951690,396,109\r\n",
			inputs: []int{374, 396}, outputs: []int{44, 109}, offs: []time.Duration{0, 4314579000}},
		"azure bad time": {spec: trace.Spec{Format: trace.AzureCSV},
			text: "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,374,44\nyesterday,1,1\n", err: ":3: TIMESTAMP: \"yesterday\" is not a date and time"},
		"azure short row": {spec: trace.Spec{Format: trace.AzureCSV},
			text: "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,374\n", err: ":2: 2 cells, the header has 3"},
		"azure no column": {spec: trace.Spec{Format: trace.AzureCSV},
			text: "TIMESTAMP,Context,GeneratedTokens\n", err: ":1: header has neither the input column \"ContextTokens\""},
		"csv mapped": {spec: trace.Spec{Format: trace.CSV, Columns: trace.Columns{Timestamp: "t", Unit: trace.Seconds, Input: "in", Output: "out"}},
			text: "t,in,out,note\n1.5,10,3,\"a, b\"\n2,20,4,c\n", inputs: []int{10, 20}, outputs: []int{3, 4}, offs: []time.Duration{0, 500 * time.Millisecond}},
		"csv bad length": {spec: trace.Spec{Format: trace.CSV, Columns: trace.Columns{Timestamp: "t", Unit: trace.Seconds, Input: "in", Output: "out"}},
			text: "t,in,out\n1,10,3\n2,-4,4\n", err: ":3: in: \"-4\" is not a length in tokens"},
		"jsonl messages": {spec: trace.Spec{Format: trace.JSONL, Columns: trace.Columns{Timestamp: "ts", Unit: trace.Micros, Output: "max_tokens", Messages: "messages"}},
			text:   `{"ts": 1000, "max_tokens": 7, "messages": [{"role": "user", "content": "three words here"}]}`,
			inputs: []int{3}, outputs: []int{7}, offs: []time.Duration{0}},
		"jsonl bad messages": {spec: trace.Spec{Format: trace.JSONL, Columns: trace.Columns{Output: "max_tokens"}},
			text: `{"timestamp": 1, "max_tokens": 7, "messages": [{"content": "x"}]}`, err: ":1: messages[0]: no role"},
		// The seed's structlog example, rendered as JSON with an ISO
		// TimeStamper, read by a mapping: prompt and output tokens.
		"jsonl structlog": {spec: trace.Spec{Format: trace.JSONL, Columns: structlog},
			text: `{"event": "llm_latency", "endpoint": "chat", "model": "gpt-4o", "ttft_ms": 412.5, "tpot_ms": 21.3, "output_tokens": 120, "prompt_tokens": 900, "total_ms": 2968.5, "timestamp": "2026-11-30T10:00:00.250Z", "level": "info"}` + "\n" +
				`{"event": "llm_latency", "endpoint": "chat", "model": "gpt-4o", "ttft_ms": 380.1, "tpot_ms": 20.9, "output_tokens": 64, "prompt_tokens": 512, "total_ms": 1696.8, "timestamp": "2026-11-30T10:00:02Z", "level": "info"}`,
			inputs: []int{900, 512}, outputs: []int{120, 64}, offs: []time.Duration{0, 1750 * time.Millisecond}},
		"crop": {spec: trace.Spec{Format: trace.Mooncake, Start: time.Second, End: 3 * time.Second},
			text: `{"timestamp": 0, "input_length": 1, "output_length": 1}` + "\n" + `{"timestamp": 1000, "input_length": 2, "output_length": 1}` + "\n" +
				`{"timestamp": 2500, "input_length": 3, "output_length": 1}` + "\n" + `{"timestamp": 3000, "input_length": 4, "output_length": 1}`,
			inputs: []int{2, 3}, outputs: []int{1, 1}, offs: []time.Duration{0, 1500 * time.Millisecond}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, offs, err := rows(t, tc.text, tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "trace:") {
					t.Fatalf("error %v, want one naming the file and %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.inputs) {
				t.Fatalf("%d rows, want %d", len(got), len(tc.inputs))
			}
			for i, r := range got {
				if r.Input != tc.inputs[i] || r.Output != tc.outputs[i] || offs[i] != tc.offs[i] {
					t.Errorf("row %d: input %d output %d at %v, want %d %d at %v", i, r.Input, r.Output, offs[i], tc.inputs[i], tc.outputs[i], tc.offs[i])
				}
			}
			if len(got[0].Hashes) != tc.hashes {
				t.Errorf("first row's hashes %v, want %d", got[0].Hashes, tc.hashes)
			}
		})
	}
}

// TestScan: the summary a plan uses, and a crop that keeps nothing.
func TestScan(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString(`{"timestamp": ` + itoa(i*10) + `, "input_length": 3, "output_length": 2}` + "\n")
	}
	p := write(t, "t.jsonl", b.String())
	s, err := trace.Scan(trace.Spec{File: p, Format: trace.Mooncake})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 5000 || s.Span != 49990*time.Millisecond || s.Input != 15000 || s.Output != 10000 {
		t.Errorf("summary %+v", s)
	}
	for _, k := range []int{0, 1, 777, 2500, 4998, 4999} {
		if got, want := s.Offset(k), time.Duration(k)*10*time.Millisecond; got != want {
			t.Errorf("offset of row %d %v, want %v", k, got, want)
		}
	}
	if got := s.RowsBy(10 * time.Second); got != 1001 {
		t.Errorf("rows by 10s %d, want 1001", got)
	}
	if _, err := trace.Scan(trace.Spec{File: p, Format: trace.Mooncake, Start: time.Hour}); err == nil || !strings.Contains(err.Error(), "no row") {
		t.Errorf("a crop past the end: %v, want no row to replay", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
