package gate_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
)

// bench renders six runs with p95 TTFT around ttft ms and throughput
// around tok tokens/s.
func bench(ttft, tok float64) string {
	var b strings.Builder
	b.WriteString("Unit ttft-p95-ms better=lower\nUnit out-tok/s better=higher\n")
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkChat/endpoint=prod-2 20 0 ns/op %.1f ttft-p95-ms %.1f out-tok/s\n",
			ttft+float64(i), tok+float64(i))
	}
	return b.String()
}

func ExampleGate() {
	base := recording.Stream("baseline.txt", strings.NewReader(bench(200, 400)))
	cand := recording.Stream("latest.txt", strings.NewReader(bench(250, 480)))
	rep, err := gate.Gate(base, cand, gate.Options{})
	if err != nil {
		fmt.Println(err) // errors.Is(err, recording.ErrUnusable): exit 2
		return
	}
	rep.WriteText(os.Stdout)
	fmt.Println("failed:", rep.Failed())
	// Output:
	// gate FAIL: latest.txt vs baseline.txt — 1 regressed, 1 improved, 0 unchanged (2 tested; Holm–Bonferroni within each family)
	//   runs     α=0.025   2 tests: Mann-Whitney over runs, per (benchmark, unit) not judged on requests
	// REGRESSED  runs  Chat/endpoint=prod  ttft-p95-ms  202.5 → 252.5  +24.7%  (p=0.00216 n=6+6 runs, tolerance 10% and 1)
	// improved   runs  Chat/endpoint=prod  out-tok/s    402.5 → 482.5  +19.9%  (p=0.00216 n=6+6 runs, tolerance 10%)
	// warning: baseline.txt and latest.txt recorded no provenance (a run from before llmsla recorded it): what was measured — model, digest, fixture, parameters — was not compared; re-record it (make bench && make baseline)
	// warning: baseline.txt: no samples: every figure judged over runs, which sees less than per-request tests (llmsla bench records X.samples.jsonl beside X.txt; llmsla baseline promotes both)
	// failed: true
}

func ExampleParseTolerance() {
	for _, flag := range []string{"ttft-p99-ms=20%", "accuracy-%=2"} {
		unit, t, _ := gate.ParseTolerance(flag)
		fmt.Printf("%s: %s (Rel %g, Abs %g)\n", unit, t, t.Rel, t.Abs)
	}
	// Output:
	// ttft-p99-ms: 20% (Rel 0.2, Abs 0)
	// accuracy-%: 2 (Rel 0, Abs 2)
}
