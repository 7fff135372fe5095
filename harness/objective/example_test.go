package objective_test

import (
	"fmt"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Objectives are data: parsed once, checked against a run's figures.
func ExampleObjectives_Check() {
	o, err := objective.ParseMap(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01, "accuracy_min": 0.9})
	if err != nil {
		panic(err)
	}
	st := &stats.Stats{Attempted: 40, Failed: 1, Errors: map[sample.ErrorKind]int{sample.KindRateLimited: 1}}
	st.TTFT.N, st.TTFT.P95 = 39, 712
	st.Quality.MatchChecked, st.Quality.Matched = 39, 30
	for _, v := range o.Check(st) {
		fmt.Println("chat endpoint=prod concurrency=10:", v)
	}
	_, err = objective.ParseMap(map[string]float64{"ttft_p96_ms": 600})
	fmt.Println(err)
	// Output:
	// chat endpoint=prod concurrency=10: ttft p95 712 ms > 600 ms (n=39)
	// chat endpoint=prod concurrency=10: error rate 2.5% > 1% (n=40; rate_limited=1)
	// chat endpoint=prod concurrency=10: accuracy 76.9% < 90% (n=39)
	// ttft_p96_ms: unknown metric (allowed: <ttft|ttfa|total|tpot|itl|lag|ttft_sched|ttfa_sched|total_sched|ttftool|tool_done|agent_total|ttft_hit|ttft_miss|session_total|srv_ttft|srv_e2e>_p<50|90|95|99>_ms, error_rate_max, json_valid_min, schema_valid_min, accuracy_min, good_min, case_pass_min, coverage_min, prefill_cost_max, drift_max, tool_valid_min, tool_match_min, agent_steps_max, cache_speedup_min, judge_pass_min, judge_score_min, queue_p95_max, kv_cache_max, preemptions_max, prefix_hit_min, ttft_gap_max, foreign_max, model_mem_max_mb, model_vram_max_mb, memory_max_mb, tokens_disagree_max, turn_ttft_p<50|90|95|99>_ms: {turn: ms})
}
