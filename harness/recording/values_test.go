package recording

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestSignedFigures: figures the metric table says may be negative or
// exceed 100 (a soak that got faster, a drift past +100%, a fit's
// intercept) are not corrupt input.
func TestSignedFigures(t *testing.T) {
	for _, line := range []string{
		"BenchmarkChat/endpoint=sim/rate=5 1 -3.5 drift-%\n",
		"BenchmarkChat/endpoint=sim/rate=5 1 250 drift-%\n",
		"BenchmarkChat/endpoint=sim/fit=prompt_tokens 1 -2.1 ttft-base-ms\n",
	} {
		res := parseOne(t, line)
		if bad := checkValues(res); len(bad) > 0 {
			t.Errorf("%q refused: %v", line, bad)
		}
	}
	if bad := checkValues(parseOne(t, "BenchmarkChat/endpoint=sim/rate=5 1 101 accuracy-%\n")); len(bad) == 0 {
		t.Error("accuracy-% 101 accepted")
	}
}

func parseOne(t *testing.T, line string) *benchfmt.Result {
	t.Helper()
	r := benchfmt.NewReader(strings.NewReader(line), "x.txt")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			return res
		}
	}
	t.Fatalf("no result in %q", line)
	return nil
}
