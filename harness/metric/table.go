package metric

import (
	"fmt"
	"math"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Table is every metric, in report order. Each is defined in one place,
// docs/METRICS.md, under its name (TestDefinedInMetricsMD).
var Table = append([]*Metric{
	{Name: "ttft", Kind: Latency, Lower: true, Report: []int{50, 95, 99}, Columns: []int{50, 95}, Threshold: true,
		Dist:       func(st *stats.Stats) stats.Summary { return st.TTFT },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.TTFT), s.TTFT > 0 }},
	{Name: "ttfa", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true,
		Dist:       func(st *stats.Stats) stats.Summary { return st.TTFA },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.TTFA), s.TTFA > 0 }},
	{Name: "total", Kind: Latency, Lower: true, Report: []int{50, 95}, Columns: []int{95}, Threshold: true,
		Dist:       func(st *stats.Stats) stats.Summary { return st.Total },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.Total), true }},
	{Name: "tpot", Kind: Latency, Lower: true, Report: []int{50}, Columns: []int{50}, Threshold: true,
		Dist: func(st *stats.Stats) stats.Summary { return st.TPOT },
		PerRequest: func(s *sample.Sample) (float64, bool) {
			d, ok := s.TPOT()
			return stats.Ms(d), ok
		}},
	{Name: "itl", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true,
		Dist: func(st *stats.Stats) stats.Summary { return st.ITL }},
	// Open loop (METRICS.md, load shapes): how late the client sent, and
	// latencies from the scheduled start, which count the wait behind a
	// slow request that latencies from t0 hide.
	{Name: "lag", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true, Applies: scheduled, Needs: needsOpen,
		Dist: func(st *stats.Stats) stats.Summary { return st.Open.Lag }},
	{Name: "ttft_sched", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true, Applies: scheduled, Needs: needsOpen,
		Dist:       func(st *stats.Stats) stats.Summary { return st.Open.TTFTSched },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.TTFT + s.Lag), s.TTFT > 0 }},
	{Name: "ttfa_sched", Kind: Latency, Lower: true, Threshold: true, Applies: scheduled, Needs: needsOpen,
		Dist:       func(st *stats.Stats) stats.Summary { return st.Open.TTFASched },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.TTFA + s.Lag), s.TTFA > 0 }},
	{Name: "total_sched", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true, Applies: scheduled, Needs: needsOpen,
		Dist:       func(st *stats.Stats) stats.Summary { return st.Open.TotalSched },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.Total + s.Lag), true }},
	{Name: "out_tok", Kind: Figure, BenchUnit: "out-tok/s", Bench: true, Column: "out-tok/s",
		Value: func(st *stats.Stats) (float64, int) {
			if st.Wall <= 0 {
				return math.NaN(), 0
			}
			return st.OutTokPerSec, st.Attempted
		}},
	{Name: "req_rate", Kind: Figure, BenchUnit: "req/s", Bench: true, Column: "req/s",
		Value: func(st *stats.Stats) (float64, int) {
			if st.Wall <= 0 {
				return math.NaN(), 0
			}
			return st.ReqPerSec, st.Attempted
		}},
	{Name: "tok_rate", Kind: Figure, BenchUnit: "tok/s", Bench: true, Column: "tok/s",
		Value: func(st *stats.Stats) (float64, int) {
			if st.Wall <= 0 {
				return math.NaN(), 0
			}
			return st.TokPerSec, st.Attempted
		}},
	// An embeddings level's throughput in texts (METRICS.md, embeddings):
	// its tokens/s is tok_rate, its prompts being all it has.
	{Name: "input_rate", Kind: Figure, BenchUnit: "inputs/s", Bench: true, Column: "in/s", Needs: needsEmbeds,
		Applies: func(st *stats.Stats) bool { return st.Embeds > 0 },
		Value: func(st *stats.Stats) (float64, int) {
			if st.Wall <= 0 || st.Embeds == 0 {
				return math.NaN(), 0
			}
			return st.InputsPerSec, st.Attempted
		}},
	{Name: "error_rate", Kind: Fraction, Lower: true, BenchUnit: "err-%", Bench: true, Column: "err", Threshold: true,
		Value:   func(st *stats.Stats) (float64, int) { return st.ErrorRate(), st.Attempted },
		Outcome: func(s *sample.Sample) (bool, bool) { return true, s.OK() },
		Detail:  func(st *stats.Stats) string { return st.ErrorKinds() }},
	{Name: "json_valid", Kind: Fraction, BenchUnit: "json-valid-%", Bench: true, Column: "json", Threshold: true, Needs: "answers checked for JSON (a structured scenario, or a JSON matcher in the fixture)",
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.JSONValidRate(), st.Quality.JSONChecked },
		PerCase: true,
		Outcome: quality(func(q *sample.Quality) (bool, bool) { return q.JSONChecked, q.JSONValid && !q.JSONLenient })},
	{Name: "schema_valid", Kind: Fraction, BenchUnit: "schema-valid-%", Bench: true, Column: "schema", Threshold: true, Needs: "a schema in the fixture's cases",
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.SchemaValidRate(), st.Quality.SchemaChecked },
		PerCase: true,
		Outcome: quality(func(q *sample.Quality) (bool, bool) { return q.SchemaChecked, q.SchemaValid })},
	{Name: "accuracy", Kind: Fraction, BenchUnit: "accuracy-%", Bench: true, Column: "acc", Threshold: true, Needs: "a matcher in the fixture's cases (and quality not off)",
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.AccuracyRate(), st.Quality.MatchChecked },
		PerCase: true,
		Outcome: quality(func(q *sample.Quality) (bool, bool) { return q.MatchChecked, q.Matched })},
	{Name: "good", Kind: Fraction, BenchUnit: "good-%", Bench: true, Column: "good", Threshold: true,
		Value: func(st *stats.Stats) (float64, int) {
			if st.Attempted == 0 {
				return math.NaN(), 0
			}
			return st.GoodPct, st.Attempted
		}},
	// Each case's consistency: judged over the whole run against
	// case_pass_min: {k, pass} (objective.ParseCasePass); the figure is
	// the share of cases that passed every try.
	{Name: "case_pass", Kind: Fraction, BenchUnit: "case-pass-%", Threshold: true, WholeRun: true, PerCase: true,
		Needs: "a fixture's cases asked and checked (each k times for case_pass_min: {k: …})",
		Value: func(st *stats.Stats) (float64, int) { return st.Consistent() }},
	{Name: "coverage", Kind: Fraction, BenchUnit: "coverage-%", Column: "cov", Threshold: true, WholeRun: true,
		Value: func(st *stats.Stats) (float64, int) { return st.Coverage(), st.Attempted },
		Detail: func(st *stats.Stats) string {
			return fmt.Sprintf("%d of %d cases asked", st.Asked, st.FixtureCases)
		}},
	// A prompt-length sweep's fit over every level of the run (METRICS.md,
	// prefill cost), reported once per scenario and endpoint.
	{Name: "prefill_cost", Kind: Figure, Lower: true, Signed: true, BenchUnit: "prefill-ms/ktok", Bench: true, Threshold: true, WholeRun: true,
		Needs:   "a sweep of two or more prompt lengths (prompt_tokens: [128, 1024, 4096])",
		Applies: func(st *stats.Stats) bool { return st.Prefill.N > 0 },
		Value:   func(st *stats.Stats) (float64, int) { return fitted(st, st.Prefill.PerKTok()), st.Prefill.N }},
	{Name: "ttft_base", Kind: Figure, Lower: true, Signed: true, BenchUnit: "ttft-base-ms", Bench: true, WholeRun: true,
		Applies: func(st *stats.Stats) bool { return st.Prefill.N > 0 },
		Value:   func(st *stats.Stats) (float64, int) { return fitted(st, st.Prefill.A), st.Prefill.N }},
	{Name: "drift", Kind: Change, Lower: true, Signed: true, BenchUnit: "drift-%", Bench: true, Threshold: true,
		Needs: "a soak of two time slices or more, each of 20 requests or more (slice: sets their length, 1m unless set; duration: the soak's)",
		Value: func(st *stats.Stats) (float64, int) {
			n := 0
			if len(st.Slices) > 1 {
				n = st.Slices[0].N + st.Slices[len(st.Slices)-1].N
			}
			return st.Drift(), n
		},
		Detail: func(st *stats.Stats) string {
			sl := st.Slices
			if len(sl) < 2 {
				return ""
			}
			first, last := sl[0], sl[len(sl)-1]
			return fmt.Sprintf("ttft p95 %s ms in %s, %s ms in %s", Num(first.TTFT.P95), first.Name(), Num(last.TTFT.P95), last.Name())
		}},
	// A capacity search's answer (METRICS.md, capacity): the highest load at
	// which every objective held, so that the gate sees a lower capacity.
	{Name: "max_rps", Kind: Search, BenchUnit: "max-rps", Bench: true},
	{Name: "max_concurrency", Kind: Search, BenchUnit: "max-concurrency", Bench: true},
	{Name: "max_speedup", Kind: Search, BenchUnit: "max-speedup", Bench: true}, // a trace's replay
	// An Ollama endpoint's own split of the TTFT (means over the breakdown
	// requests), reported by benchmarks beside the client's figures.
	{Name: "load", Kind: Server, Lower: true, BenchUnit: "load-ms", Bench: true},
	{Name: "prefill", Kind: Server, Lower: true, BenchUnit: "prefill-ms", Bench: true},
	{Name: "netq", Kind: Server, Lower: true, Signed: true, BenchUnit: "netq-ms", Bench: true},
	{Name: "server_tok", Kind: Server, BenchUnit: "server-tok/s", Bench: true},
	// Tool calls and agent loops (stats/tools.go): the latency of the
	// call, whether calls were valid and the expected ones, and the loop.
	{Name: "ttftool", Kind: Latency, Lower: true, Report: []int{50, 95}, Columns: []int{95}, Threshold: true, Needs: needsTools,
		Dist:       func(st *stats.Stats) stats.Summary { return st.Tools.TTFTool },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.TTFTool), s.TTFTool > 0 }},
	{Name: "tool_done", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true, Needs: needsTools,
		Dist:       func(st *stats.Stats) stats.Summary { return st.Tools.ToolDone },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.ToolDone), s.ToolDone > 0 }},
	{Name: "tool_valid", Kind: Fraction, BenchUnit: "tool-valid-%", Bench: true, Column: "tool", Threshold: true, Needs: needsToolCases,
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.ToolValidRate(), st.Quality.ToolChecked },
		PerCase: true,
		Outcome: quality(func(q *sample.Quality) (bool, bool) { return q.ToolChecked, q.ToolValid })},
	{Name: "tool_match", Kind: Fraction, BenchUnit: "tool-match-%", Bench: true, Column: "call", Threshold: true, Needs: "tool cases with an expect_tool (and quality not off)",
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.ToolMatchRate(), st.Quality.ToolMatchChecked },
		PerCase: true,
		Outcome: quality(func(q *sample.Quality) (bool, bool) { return q.ToolMatchChecked, q.ToolMatched })},
	{Name: "agent_total", Kind: Latency, Lower: true, Report: []int{50, 95}, Columns: []int{95}, Threshold: true, Needs: needsLoops + " that gave a final answer",
		Dist:   func(st *stats.Stats) stats.Summary { return st.Tools.AgentTotal },
		Detail: unfinished},
	{Name: "agent_steps", Kind: Figure, Lower: true, BenchUnit: "agent-steps-max", Bench: true, Column: "steps max", Threshold: true, Needs: needsLoops,
		Applies: func(st *stats.Stats) bool { return st.Tools.Loops > 0 },
		Value: func(st *stats.Stats) (float64, int) {
			if st.Tools.Loops == 0 {
				return math.NaN(), 0
			}
			return st.Tools.Steps.Max, st.Tools.Loops
		},
		Detail: unfinished},
	// The server's prefix cache (METRICS.md, caches): its share of
	// requests and of prompt tokens, and ttft split by whether the
	// server said it served part of the prompt from cache.
	{Name: "cache_hit", Kind: Fraction, BenchUnit: "cache-hit-%", Bench: true, Column: "hit", Needs: needsCache,
		Value: func(st *stats.Stats) (float64, int) { return st.Cache.HitRate(), st.Cache.Known }},
	{Name: "cached_tok", Kind: Fraction, BenchUnit: "cached-tok-%", Bench: true, Column: "cached", Needs: needsCache,
		Value: func(st *stats.Stats) (float64, int) { return st.Cache.CachedRate(), st.Cache.Known }},
	{Name: "ttft_hit", Kind: Latency, Lower: true, Report: []int{50, 95}, Columns: []int{50}, Threshold: true, Applies: cacheSplit, Needs: needsSplit,
		Dist:       func(st *stats.Stats) stats.Summary { return st.Cache.TTFTHit },
		PerRequest: func(s *sample.Sample) (float64, bool) { return stats.Ms(s.TTFT), s.TTFT > 0 && s.CacheHit() }},
	{Name: "ttft_miss", Kind: Latency, Lower: true, Report: []int{50, 95}, Columns: []int{50}, Threshold: true, Applies: cacheSplit, Needs: needsSplit,
		Dist: func(st *stats.Stats) stats.Summary { return st.Cache.TTFTMiss },
		PerRequest: func(s *sample.Sample) (float64, bool) {
			return stats.Ms(s.TTFT), s.TTFT > 0 && s.CacheKnown() && !s.CacheHit()
		}},
	{Name: "cache_speedup", Kind: Figure, BenchUnit: "cache-speedup-x", Bench: true, Column: "speedup", Threshold: true, Applies: cacheSplit, Needs: needsSplit,
		Value: func(st *stats.Stats) (float64, int) {
			return st.Cache.Speedup(), min(st.Cache.TTFTHit.N, st.Cache.TTFTMiss.N)
		}},
	// Conversations (METRICS.md: session_total, history cost): a whole
	// conversation's time, and how much each token of history adds to a
	// turn's TTFT.
	{Name: "session_total", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true, Needs: needsConversations,
		Applies: func(st *stats.Stats) bool { return st.Conv.Sessions > 0 },
		Dist:    func(st *stats.Stats) stats.Summary { return st.Conv.Total }},
	{Name: "history_cost", Kind: Figure, Lower: true, Signed: true, BenchUnit: "history-ms/ktok", Bench: true,
		Applies: func(st *stats.Stats) bool { return st.Conv.History.N > 0 },
		Value:   func(st *stats.Stats) (float64, int) { return st.Conv.History.PerKTok(), st.Conv.History.N }},
	// A judge model's verdicts on the answers (METRICS.md, judges), asked
	// after each level's measured requests: a judgment that failed counts
	// as not passed, and has no score.
	{Name: "judge_pass", Kind: Fraction, BenchUnit: "judge-pass-%", Bench: true, Column: "judge", Threshold: true, Needs: needsJudge,
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.JudgePassRate(), st.Quality.JudgeChecked },
		PerCase: true,
		Outcome: quality(func(q *sample.Quality) (bool, bool) { return q.JudgeChecked, q.JudgePass })},
	{Name: "judge_score", Kind: Figure, BenchUnit: "judge-score", Bench: true, Threshold: true, Needs: needsJudge,
		Value: func(st *stats.Stats) (float64, int) { return st.Quality.JudgeScoreMean(), st.Quality.JudgeScored }},
}, serverRows...)

// What the tool figures need to be measured.
const (
	needsTools     = "answers with tool calls (a fixture whose cases offer tools)"
	needsToolCases = "tool cases in the fixture (tools:, and quality not off)"
	needsLoops     = "agent loops (fixture cases with tool_results)"
)

// unfinished says how many of a run's agent loops gave no final answer.
func unfinished(st *stats.Stats) string {
	if t := st.Tools; t.Unfinished > 0 {
		return fmt.Sprintf("%d of %d loops gave no final answer", t.Unfinished, t.Loops)
	}
	return ""
}

func cacheSplit(st *stats.Stats) bool { return st.Cache.Split() }

// What the cache figures need.
const (
	needsCache = "a server that reports cached prompt tokens (usage.prompt_tokens_details.cached_tokens, llama.cpp's timings.cache_n)"
	needsSplit = needsCache + ", and requests with and without them (cache: warm)"
)

// needsConversations is what the figures of conversations need.
const needsConversations = "conversations played to their last turn (a fixture whose cases have turns:, at a sessions: or session_rate: level)"

// needsEmbeds is what inputs/s needs.
const needsEmbeds = "embeddings requests (an endpoint of api: embeddings)"

// needsJudge is what the judge's figures need.
const needsJudge = "a rubric on the scenario or its cases and a judge endpoint (judge: {endpoint: …} in sla.yaml)"

func scheduled(st *stats.Stats) bool { return st.Open.Scheduled }

// needsOpen is what the open-loop figures need.
const needsOpen = "an open loop (rate:), whose requests have a scheduled instant"

// fitted is v when the run has a prefill fit, NaN (not measured) when it
// has none: a fit's zero value is not a prefill cost of 0.
func fitted(st *stats.Stats, v float64) float64 {
	if st.Prefill.N == 0 {
		return math.NaN()
	}
	return v
}

// quality reads a quality outcome of a request that has a quality result.
func quality(read func(*sample.Quality) (checked, passed bool)) func(*sample.Sample) (bool, bool) {
	return func(s *sample.Sample) (bool, bool) {
		if s.Quality == nil {
			return false, false
		}
		return read(s.Quality)
	}
}
