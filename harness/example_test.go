package harness_test

import (
	"fmt"

	"github.com/llmsla/llmsla/harness"
)

// An SLA is data: parsed once, checked against a run's figures.
func ExampleParseSLA() {
	sla, err := harness.ParseSLA(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01})
	if err != nil {
		panic(err)
	}
	st := &harness.Stats{Attempted: 40, Failed: 1, Errors: map[harness.ErrorKind]int{harness.KindRateLimited: 1}}
	st.TTFT.N, st.TTFT.P95 = 39, 712
	for _, v := range sla.Check(st) {
		fmt.Println("chat endpoint=prod concurrency=10:", v)
	}
	_, err = harness.ParseSLA(map[string]float64{"ttft_p96_ms": 600})
	fmt.Println(err)
	// Output:
	// chat endpoint=prod concurrency=10: error rate 2.5% > 1% (n=40; rate_limited=1)
	// chat endpoint=prod concurrency=10: ttft p95 712 ms > 600 ms (n=39)
	// ttft_p96_ms: unknown metric (allowed: <ttft|ttfa|total|tpot|itl>_p<50|90|95|99>_ms, error_rate_max, json_valid_min, schema_valid_min, accuracy_min, good_min)
}

// Benchmark names are key=value pairs; a value that benchfmt would misread
// is escaped.
func ExampleNameValue() {
	fmt.Println(harness.NameValue("gpt-4"), harness.NameValue("meta-llama/Llama-3.1-8B"))
	// Output: gpt_4 meta-llama_Llama-3.1-8B
}
