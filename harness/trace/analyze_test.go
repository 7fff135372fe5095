package trace_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
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
