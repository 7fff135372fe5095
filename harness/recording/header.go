package recording

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/sample"
)

// Header is what a recorded run's benchmark file says of the run before
// its benchmark lines, as benchfmt file configuration ("key: value"):
// benchstat shows it, the gate compares its provenance, and the samples
// file beside it starts with the same provenance (sample.Provenance).
type Header struct {
	Commit string    // the client's: git describe of llmsla
	Date   time.Time // when the run started
	Config string    // where the configuration came from
	Count  int       // -count: runs of each benchmark (0: not said)
	Shard  string    // "1/3" for a shard's share ("": none)
	// Provenance is what was measured beyond the figures; its keys are
	// written as they are (endpoint.prod.model.digest: …).
	Provenance sample.Provenance
	// Units are the benchmark units' metadata lines to write (Unit
	// max-rps better=higher), for a file whose benchmark lines are not
	// go test's (which prints its own).
	Units []Unit
}

// Unit is one unit's metadata line.
type Unit struct{ Name, Better string }

// Bytes is the header as written at the top of the benchmark file.
func (h Header) Bytes() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "commit: %s\n", h.Commit)
	if !h.Date.IsZero() {
		fmt.Fprintf(&b, "date: %s\n", h.Date.UTC().Format(stampLayout))
	}
	fmt.Fprintf(&b, "config: %s\n", h.Config)
	if h.Count > 0 {
		fmt.Fprintf(&b, "count: %d\n", h.Count)
	}
	if h.Shard != "" {
		fmt.Fprintf(&b, "shard: %s\n", h.Shard)
	}
	b.WriteString(h.Provenance.Lines())
	for _, u := range h.Units {
		fmt.Fprintf(&b, "Unit %s better=%s\n", u.Name, u.Better)
	}
	return b.Bytes()
}

// Result is one benchmark line llmsla writes itself (a capacity search's
// limit): the benchmark's full name as go test names it
// (BenchmarkChat/endpoint=prod/capacity=rate), and its values.
type Result struct {
	Name   string // BenchmarkChat/endpoint=prod/capacity=rate
	Values []benchfmt.Value
}

// WriteResults writes a benchmark file whole or not at all: the header,
// then each result through benchfmt's writer, so that what is written is
// what the gate reads. Every name must parse as a benchmark line's.
func WriteResults(path string, h Header, results []Result) error {
	var b bytes.Buffer
	b.Write(h.Bytes())
	w := benchfmt.NewWriter(&b)
	for _, r := range results {
		if err := w.Write(&benchfmt.Result{Name: benchfmt.Name(strings.TrimPrefix(r.Name, "Benchmark")), Iters: 1, Values: r.Values}); err != nil {
			return fmt.Errorf("%s: %s: %w", path, r.Name, err)
		}
	}
	// Read back with the reader's rules before it is written.
	if _, err := Read([]Source{Stream(path, bytes.NewReader(b.Bytes()))}, nil, func(int, *benchfmt.Result) {}); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes())
}

// ReadHeader is the file configuration of a benchmark file, as benchfmt
// reads it with its first result (and as the gate compares it): nil when
// the file has no benchmark line, or cannot be read.
func ReadHeader(path string) sample.Provenance {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var c Config
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			c.Add(res)
			return c.Provenance()
		}
	}
	return nil
}

// Count is a header's count, 0 when it has none.
func Count(p sample.Provenance) int {
	n, _ := strconv.Atoi(p["count"])
	return n
}
