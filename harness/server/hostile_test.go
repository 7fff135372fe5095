package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/secret"
)

// watchOnce reads src before and after a run through a Watch, writes the
// readings to a server file through filter and reads the file back: what
// the verdict would read.
func watchOnce(t *testing.T, src Source, filter func([]byte) []byte) []Reading {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.server.jsonl")
	f, err := Create(path, filter)
	require.NoError(t, err)
	w := NewWatch([]Source{src}, time.Hour, Labels{Scenario: "chat", Endpoint: "e", Level: "concurrency=1"}, f.Write)
	w.Begin("r.1")
	w.End(1)
	require.NoError(t, f.Close())
	back, err := Read(path)
	require.NoError(t, err, "the server file llmsla wrote reads back")
	require.Len(t, back, 2, "the readings before and after")
	return back
}

// serve is a /metrics answering body with Content-Type ct.
func serve(t *testing.T, ct, body string) Source {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	m := NewMetrics(srv.URL+"/metrics", nil)
	t.Cleanup(m.Close)
	return m
}

// TestHostileMetrics: whatever a /metrics or /api/ps answers — labels
// past the bound, a negative counter, an error holding control
// characters or cut inside a rune, NUL, bytes that are not UTF-8, a
// secret in a label, CRLF, a BOM, a body cut mid-line, a series given
// twice — the server file llmsla writes reads back (what is written is
// readable), and a figure is measured from what the server said or the
// reading fails, said out loud; never a file the verdict then refuses.
func TestHostileMetrics(t *testing.T) {
	const text = "text/plain; version=0.0.4"
	long := strings.Repeat("x", 5<<10)
	const key = "sk-hostile-metrics-0123456789"
	redact := secret.New(key).RedactBytes
	cases := map[string]struct {
		src    Source
		filter func([]byte) []byte
		failed string  // part of each reading's error; "" when it is taken
		kept   string  // a series kept, when taken
		value  float64 // its value, in the first reading
		not    []string
	}{
		"a label past the bound, another family": {src: serve(t, text, "# TYPE other gauge\nother{l=\""+long+"\"} 1\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 3\n"),
			kept: "vllm:num_requests_waiting", value: 3},
		"a label past the bound, a figure's family": {src: serve(t, text, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{l=\""+long+"\"} 3\n"),
			failed: "labels: longer than 4096 bytes"},
		"a negative counter": {src: serve(t, text, "# TYPE vllm:request_success_total counter\nvllm:request_success_total -5\n"),
			failed: "a counter's increase of -5"},
		"an error cut inside a rune": {src: serve(t, "x"+strings.Repeat("é", 300), "a 1\n"),
			failed: "Content-Type"},
		"an error holding an escape": {src: SourceFunc(SourceOllama, func(context.Context, *Reading) error {
			return &hostileErr{"model \x1b]0;pwned\x07 gone\nBenchmarkFake 1 1 ns/op"}
		}), failed: `model \x1b]0;pwned\a gone\nBenchmarkFake`, not: []string{"\x1b", "\x07", "\n"}},
		"NUL in the body": {src: serve(t, text, "vllm:num_requests_waiting\x00 3\n"), failed: "not the Prometheus text format"},
		"a label value not UTF-8": {src: serve(t, text, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{l=\"\xff\xfe\"} 3\n"),
			failed: "not the Prometheus text format"},
		"a secret echoed in a label": {src: serve(t, text, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{key=\""+key+"\"} 3\n"),
			filter: redact, kept: "vllm:num_requests_waiting", value: 3, not: []string{key}},
		"CRLF":                {src: serve(t, text, "# TYPE vllm:num_requests_waiting gauge\r\nvllm:num_requests_waiting 3\r\n"), kept: "vllm:num_requests_waiting", value: 3},
		"a BOM":               {src: serve(t, text, "\ufeff# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 3\n"), failed: "not the Prometheus text format"},
		"a body cut mid-line": {src: serve(t, text, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 3\nvllm:num_requests_run"), failed: "not the Prometheus text format"},
		"a series twice": {src: serve(t, text, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 3\nvllm:num_requests_waiting 9\n"),
			failed: "not the Prometheus text format"},
		"a value that overflows": {src: serve(t, text, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 1e999\n"), failed: "not the Prometheus text format"},
		"NaN and Inf":            {src: serve(t, text, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting NaN\n# TYPE g gauge\ng +Inf\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 2\n"), kept: "vllm:num_requests_running", value: 2},
		"a model name past the bound (/api/ps)": {src: SourceFunc(SourceOllama, func(_ context.Context, rd *Reading) error {
			rd.Series = []Series{{Name: OllamaSize, Type: Gauge, Labels: `model="` + long + `"`, Value: 5}}
			return nil
		}), failed: "labels: longer than 4096 bytes"},
		"a model name with an escape (/api/ps)": {src: SourceFunc(SourceOllama, func(_ context.Context, rd *Reading) error {
			rd.Series = []Series{{Name: OllamaSize, Type: Gauge, Labels: "model=\"m\x1b[2J\"", Value: 5}}
			return nil
		}), failed: "labels: longer than 4096 bytes or holding a control character"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			back := watchOnce(t, tc.src, tc.filter)
			for _, rd := range back {
				assert.True(t, utf8.ValidString(rd.Err), "error %q", rd.Err)
				for _, n := range tc.not {
					assert.NotContains(t, rd.Err, n)
					for _, s := range rd.Series {
						assert.NotContains(t, s.Labels, n)
					}
				}
				if tc.failed != "" {
					assert.Contains(t, rd.Err, tc.failed)
					assert.Empty(t, rd.Series)
					continue
				}
				assert.Empty(t, rd.Err)
			}
			if tc.failed == "" {
				got := find(back[0], tc.kept)
				require.Len(t, got, 1, "%s kept", tc.kept)
				assert.Equal(t, tc.value, got[0].Value)
			}
		})
	}
}

type hostileErr struct{ s string }

func (e *hostileErr) Error() string { return e.s }

// TestHostileServerFile: a server file's lines edited or forged — a
// reading dated 9999 or 1999, one cut mid-line, NUL, a line past the
// bound — are refused naming file:line; the window never spans a date
// the samples' check would refuse.
func TestHostileServerFile(t *testing.T) {
	line := func(at string) string {
		return `{"source":"metrics","scenario":"chat","endpoint":"e","run":"r.1","phase":"before","t":"` + at + `","took_ns":1000}`
	}
	for name, tc := range map[string]struct{ text, err string }{
		"a reading in 2026": {text: line("2026-11-30T10:00:00Z") + "\n"},
		"a reading in 9999": {text: line("9999-12-31T00:00:00Z") + "\n", err: "r.server.jsonl:1: t 9999-12-31"},
		"a reading in 1999": {text: line("1999-12-31T00:00:00Z") + "\n", err: "r.server.jsonl:1: t 1999-12-31"},
		"cut mid-line":      {text: line("2026-11-30T10:00:00Z") + "\n" + line("2026-11-30T10:00:01Z")[:30], err: "r.server.jsonl:2:"},
		"NUL":               {text: "\x00\n", err: "r.server.jsonl:1:"},
		"a line past 1 MiB": {text: strings.Repeat(" ", MaxLine+2) + "\n", err: "r.server.jsonl:1: a line longer than 1 MiB"},
		"an unknown source": {text: strings.Replace(line("2026-11-30T10:00:00Z"), `"metrics"`, `"metrics\u001b[2J"`, 1) + "\n", err: `source: "metrics\x1b[2J"`},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "r.server.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(tc.text), 0o644))
			rds, err := Read(p)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.NotContains(t, err.Error(), "\x1b")
				return
			}
			require.NoError(t, err)
			assert.Len(t, rds, 1)
		})
	}
}
