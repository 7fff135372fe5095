package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runFig is one generated unit: its true mean and noise as a coefficient
// of variation (sd/mean).
type runFig struct {
	unit, better string
	mean, cv     float64
}

// realistic is a chat scenario's figures with ~5% run-to-run noise.
var realistic = []runFig{
	{"ttft-p95-ms", "lower", 250, 0.05},
	{"total-p95-ms", "lower", 2100, 0.05},
	{"out-tok/s", "higher", 410, 0.05},
	{"accuracy-%", "higher", 90, 0.05},
}

// run describes one generated benchfmt file.
type run struct {
	endpoints []string
	metrics   []runFig
	runs      int
	// change maps a unit to the transformation of its true mean.
	change map[string]func(float64) float64
}

// genBench renders r as `go test -bench -count=runs` output, drawing each
// figure from a normal distribution around its (changed) mean.
func genBench(rng *rand.Rand, r run) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: github.com/llmsla/llmsla/suites\n")
	for _, m := range r.metrics {
		fmt.Fprintf(&b, "Unit %s better=%s\n", m.unit, m.better)
	}
	for range r.runs {
		for _, ep := range r.endpoints {
			fmt.Fprintf(&b, "BenchmarkChat/endpoint=%s/concurrency=5-2\t20\t0 ns/op", ep)
			for _, m := range r.metrics {
				mean := m.mean
				if f := r.change[m.unit]; f != nil {
					mean = f(mean)
				}
				v := mean + rng.NormFloat64()*m.cv*m.mean
				if strings.HasSuffix(m.unit, "-%") {
					v = math.Min(100, math.Max(0, v))
				}
				fmt.Fprintf(&b, "\t%.2f %s", v, m.unit)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("PASS\nok  \tgithub.com/llmsla/llmsla/suites\t1.234s\n")
	return b.String()
}

// writeFile writes content to a file named name in a fresh temp dir.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func scaleBy(f float64) func(float64) float64 { return func(x float64) float64 { return x * f } }
func plus(d float64) func(float64) float64    { return func(x float64) float64 { return x + d } }

// withCV returns ms with unit's noise set to cv.
func withCV(ms []runFig, unit string, cv float64) []runFig {
	out := append([]runFig(nil), ms...)
	for i := range out {
		if out[i].unit == unit {
			out[i].cv = cv
		}
	}
	return out
}
