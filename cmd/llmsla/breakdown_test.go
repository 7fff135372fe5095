package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/verdict"
)

// TestBreakdownLines: an Ollama endpoint's server figures, which the
// benchmarks report run by run, are shown under the verdict as one line per
// benchmark (medians over its runs), not only inside benchmark lines.
func TestBreakdownLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.txt")
	rec := "Unit load-ms better=lower\n" +
		"BenchmarkChat/endpoint=local/concurrency=1-2 20 0 ns/op 30 ttft-p50-ms 14 load-ms 2 prefill-ms 5 netq-ms 150 server-tok/s\n" +
		"BenchmarkChat/endpoint=local/concurrency=1-2 20 0 ns/op 31 ttft-p50-ms 16 load-ms 2 prefill-ms 7 netq-ms 160 server-tok/s\n" +
		"BenchmarkChat/endpoint=local/concurrency=1-2 20 0 ns/op 29 ttft-p50-ms 15 load-ms 3 prefill-ms 6 netq-ms 155 server-tok/s\n" +
		"BenchmarkBatch/endpoint=sim/concurrency=16-2 20 0 ns/op 30 ttft-p50-ms\n"
	if err := os.WriteFile(p, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	verdict.WriteBreakdowns(&out, p)
	want := "breakdown (chat endpoint=local concurrency=1, median of 3 runs): ttft = network+queue 6.0 ms + load 15.0 ms + prefill 2.0 ms; server decode 155 tok/s\n"
	if out.String() != want {
		t.Errorf("breakdown lines:\n%q\nwant\n%q", out.String(), want)
	}
	if strings.Contains(out.String(), "batch") {
		t.Error("a benchmark without server figures got a line")
	}
}
