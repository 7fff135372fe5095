package health_test

import (
	"fmt"
	"testing"

	"github.com/llmsla/llmsla/harness/health"
)

// BenchmarkLimits is the evidence behind health.Default: a level of 80
// requests at concurrency 8 beside spin CPU-bound goroutines, the
// client's figures and its readings' p95 error against the simulator's
// truth, side by side. One iteration is one level.
//
//	go test -run '^$' -bench Limits -benchtime 2x ./harness/health/
func BenchmarkLimits(b *testing.B) {
	p := health.Start()
	defer p.Stop()
	for _, spin := range []int{0, 1, 2, 4, 8} {
		b.Run(fmt.Sprintf("spin=%d", spin), func(b *testing.B) {
			var late50, late99, errP95 float64
			for b.Loop() {
				f, e := level(b, p, spin, 80)
				late50, late99, errP95 = late50+f.LateP50, late99+f.LateP99, errP95+e
			}
			n := float64(b.N)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(late50/n, "late-p50-ms")
			b.ReportMetric(late99/n, "late-p99-ms")
			b.ReportMetric(errP95/n, "err-p95-ms")
		})
	}
}
