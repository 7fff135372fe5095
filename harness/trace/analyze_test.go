package trace_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/internal/modroot"
	"github.com/llmsla/llmsla/harness/trace"
)

// shipped is the path of the shipped trace.
func shipped(t testing.TB) string {
	t.Helper()
	root, err := modroot.FromWD()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "traces", "sample.mooncake.jsonl")
}

// TestShippedTrace: the shipped trace is what its script writes.
func TestShippedTrace(t *testing.T) {
	var b bytes.Buffer
	if err := trace.Generate(&b, trace.Shipped); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(shipped(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("traces/sample.mooncake.jsonl is not what trace.Shipped generates: go run traces/generate.go > traces/sample.mooncake.jsonl")
	}
}

// TestAnalyzeShipped: the analysis of the shipped trace finds what the
// generator put in — its rate, its lengths' medians and means, its
// prefix share within 5%, its burstiness within 20% (a shape estimated
// from 1,200 gaps).
func TestAnalyzeShipped(t *testing.T) {
	g := trace.Shipped
	a, err := trace.Analyze(trace.Spec{File: shipped(t), Format: trace.Mooncake})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	a.Write(&b)
	t.Log("\n" + b.String())
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"rows", float64(a.Rows), float64(g.Rows), 0},
		{"rate", a.Rate, g.Rate, 0.05},
		{"input mean", trace.Mean(&a.Input), g.InputMean(), 0.05},
		{"output mean", trace.Mean(&a.Output), g.OutputMean(), 0.05},
		{"output median", a.Output.Percentile(50), g.OutputMedian, 0.05},
		{"prefix share", a.PrefixShare, g.PrefixShare(), 0.05},
		{"burstiness", a.Burstiness, g.Burstiness, 0.20},
	}
	for _, c := range checks {
		if off := math.Abs(c.got/c.want - 1); !(off <= c.tol+1e-9) {
			t.Errorf("%s: analysed %.4g, generated %.4g: %.1f%% off (allowed %.0f%%)", c.name, c.got, c.want, 100*off, 100*c.tol)
		}
	}
}

// TestSynthKeepsSharedPrefixes: lengths rescaled 50× keep the trace's
// share of shared-prefix tokens within 5% when the hash ids are read at
// the block the rescaling gives them (Rescale.Block); read at Mooncake's
// 512 tokens, every short prompt would be its first block, shared by all
// (issue 32: 8.1% became 82%).
func TestSynthKeepsSharedPrefixes(t *testing.T) {
	spec := trace.Spec{File: shipped(t), Format: trace.Mooncake}
	before, err := trace.Analyze(spec)
	if err != nil {
		t.Fatal(err)
	}
	o := trace.Rescale{Speedup: 1, InputScale: 0.02, OutputScale: 1, Subsample: 1}
	p := filepath.Join(t.TempDir(), "small.jsonl")
	var b bytes.Buffer
	if _, err := trace.Synth(spec, o, &b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if o.Block(spec) != 10 {
		t.Fatalf("block %d, want 512 × 0.02 ≈ 10", o.Block(spec))
	}
	after, err := trace.Analyze(trace.Spec{File: p, Format: trace.Mooncake, Block: o.Block(spec)})
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(after.PrefixShare/before.PrefixShare - 1); d > 0.05 {
		t.Errorf("shared prefixes %.1f%% → %.1f%% (%.1f%% off), want within 5%%", 100*before.PrefixShare, 100*after.PrefixShare, 100*d)
	}
	naive, err := trace.Analyze(trace.Spec{File: p, Format: trace.Mooncake})
	if err != nil {
		t.Fatal(err)
	}
	if naive.PrefixShare < 1.2*before.PrefixShare {
		t.Errorf("read at 512 tokens a block the share is %.1f%%: the test no longer tells the blocks apart", 100*naive.PrefixShare)
	}
	if n := o.Note(spec, p); !strings.Contains(n, "block: 10") {
		t.Errorf("the note %q does not say the block to replay it with", n)
	}
}
