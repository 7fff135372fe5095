package metric

import (
	"fmt"
	"math"
	"time"

	qualityPkg "github.com/llmsla/llmsla/harness/quality"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Table is every metric, in report order. The definitions are those of
// METRICS.md (docs/METRICS.md).
var Table = []*Metric{
	{Name: "ttft", Kind: Latency, Lower: true, Report: []int{50, 95, 99}, Columns: []int{50, 95}, Threshold: true,
		Doc:        "t0 → first token of any kind (reasoning included)",
		Dist:       func(st *stats.Stats) stats.Summary { return st.TTFT },
		PerRequest: func(s *sample.Sample) (float64, bool) { return ms(s.TTFT), s.TTFT > 0 }},
	{Name: "ttfa", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true,
		Doc:        "t0 → first answer token (reasoning excluded)",
		Dist:       func(st *stats.Stats) stats.Summary { return st.TTFA },
		PerRequest: func(s *sample.Sample) (float64, bool) { return ms(s.TTFA), s.TTFA > 0 }},
	{Name: "total", Kind: Latency, Lower: true, Report: []int{50, 95}, Columns: []int{95}, Threshold: true,
		Doc:        "t0 → end of stream",
		Dist:       func(st *stats.Stats) stats.Summary { return st.Total },
		PerRequest: func(s *sample.Sample) (float64, bool) { return ms(s.Total), true }},
	{Name: "tpot", Kind: Latency, Lower: true, Report: []int{50}, Columns: []int{50}, Threshold: true,
		Doc:  "(total − ttft) / (output tokens − 1)",
		Dist: func(st *stats.Stats) stats.Summary { return st.TPOT },
		PerRequest: func(s *sample.Sample) (float64, bool) {
			d, ok := s.TPOT()
			return ms(d), ok
		}},
	{Name: "itl", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true,
		Doc:  "gaps between token-bearing chunks, pooled",
		Dist: func(st *stats.Stats) stats.Summary { return st.ITL }},
	// Open loop (METRICS.md, load shapes): how late the client sent, and
	// latencies from the scheduled start, which count the wait behind a
	// slow request that latencies from t0 hide.
	{Name: "lag", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true, Applies: scheduled,
		Doc:  "t0 − tsched: how late the client sent (open loop)",
		Dist: func(st *stats.Stats) stats.Summary { return st.Open.Lag }},
	{Name: "ttft_sched", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true, Applies: scheduled,
		Doc:        "tsched → first token (open loop; = ttft in closed loop)",
		Dist:       func(st *stats.Stats) stats.Summary { return st.Open.TTFTSched },
		PerRequest: func(s *sample.Sample) (float64, bool) { return ms(s.TTFT + s.Lag), s.TTFT > 0 }},
	{Name: "ttfa_sched", Kind: Latency, Lower: true, Threshold: true, Applies: scheduled,
		Doc:        "tsched → first answer token (open loop)",
		Dist:       func(st *stats.Stats) stats.Summary { return st.Open.TTFASched },
		PerRequest: func(s *sample.Sample) (float64, bool) { return ms(s.TTFA + s.Lag), s.TTFA > 0 }},
	{Name: "total_sched", Kind: Latency, Lower: true, Report: []int{95}, Threshold: true, Applies: scheduled,
		Doc:        "tsched → end of stream (open loop)",
		Dist:       func(st *stats.Stats) stats.Summary { return st.Open.TotalSched },
		PerRequest: func(s *sample.Sample) (float64, bool) { return ms(s.Total + s.Lag), true }},
	{Name: "out_tok", Kind: Figure, BenchUnit: "out-tok/s", Bench: true, Column: "out-tok/s",
		Doc: "Σ output tokens / wall time of the measured window",
		Value: func(st *stats.Stats) (float64, int) {
			if st.Wall <= 0 {
				return math.NaN(), 0
			}
			return st.OutTokPerSec, st.Attempted
		}},
	{Name: "error_rate", Kind: Fraction, Lower: true, BenchUnit: "err-%", Bench: true, Column: "err", Threshold: true,
		Doc:     "failed / attempted requests",
		Value:   func(st *stats.Stats) (float64, int) { return st.ErrorRate(), st.Attempted },
		Outcome: func(s *sample.Sample) (bool, bool) { return true, s.OK() },
		Detail:  func(st *stats.Stats) string { return st.ErrorKinds() }},
	{Name: "json_valid", Kind: Fraction, BenchUnit: "json-valid-%", Bench: true, Column: "json", Threshold: true,
		Doc:     "answers that parse as JSON (strict) / answers checked",
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.JSONValidRate(), st.Quality.JSONChecked },
		PerCase: true,
		Outcome: quality(func(q *qualityResult) (bool, bool) { return q.JSONChecked, q.JSONValid && !q.JSONLenient })},
	{Name: "schema_valid", Kind: Fraction, BenchUnit: "schema-valid-%", Bench: true, Column: "schema", Threshold: true,
		Doc:     "answers valid against the JSON Schema / answers checked",
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.SchemaValidRate(), st.Quality.SchemaChecked },
		PerCase: true,
		Outcome: quality(func(q *qualityResult) (bool, bool) { return q.SchemaChecked, q.SchemaValid })},
	{Name: "accuracy", Kind: Fraction, BenchUnit: "accuracy-%", Bench: true, Column: "acc", Threshold: true,
		Doc:     "answers matching the fixture's expected answer / answers checked",
		Value:   func(st *stats.Stats) (float64, int) { return st.Quality.AccuracyRate(), st.Quality.MatchChecked },
		PerCase: true,
		Outcome: quality(func(q *qualityResult) (bool, bool) { return q.MatchChecked, q.Matched })},
	{Name: "good", Kind: Fraction, BenchUnit: "good-%", Bench: true, Column: "good", Threshold: true,
		Doc: "requests meeting every objective / attempted",
		Value: func(st *stats.Stats) (float64, int) {
			if st.Attempted == 0 {
				return math.NaN(), 0
			}
			return st.GoodPct, st.Attempted
		}},
	{Name: "coverage", Kind: Fraction, BenchUnit: "coverage-%", Column: "cov", Threshold: true, WholeRun: true,
		Doc:   "distinct fixture cases asked in the scenario's run on the endpoint, all levels / cases in the fixture",
		Value: func(st *stats.Stats) (float64, int) { return st.Coverage(), st.Attempted },
		Detail: func(st *stats.Stats) string {
			return fmt.Sprintf("%d of %d cases asked", st.Asked, st.FixtureCases)
		}},
	// A prompt-length sweep's fit over every level of the run (METRICS.md,
	// prefill cost), reported once per scenario and endpoint.
	{Name: "prefill_cost", Kind: Figure, Lower: true, Signed: true, BenchUnit: "prefill-ms/ktok", Bench: true, Threshold: true, WholeRun: true,
		Doc:     "least-squares ttft per 1,000 prompt tokens over a prompt_tokens sweep",
		Applies: func(st *stats.Stats) bool { return st.Prefill.N > 0 },
		Value:   func(st *stats.Stats) (float64, int) { return fitted(st, st.Prefill.PerKTok()), st.Prefill.N }},
	{Name: "ttft_base", Kind: Figure, Lower: true, Signed: true, BenchUnit: "ttft-base-ms", Bench: true, WholeRun: true,
		Doc:     "the fit's ttft at zero prompt tokens",
		Applies: func(st *stats.Stats) bool { return st.Prefill.N > 0 },
		Value:   func(st *stats.Stats) (float64, int) { return fitted(st, st.Prefill.A), st.Prefill.N }},
	{Name: "drift", Kind: Change, Lower: true, Signed: true, BenchUnit: "drift-%", Bench: true, Threshold: true,
		Doc: "last time slice's p95 ttft / first slice's − 1 (a soak)",
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
	{Name: "max_rps", Kind: Search, BenchUnit: "max-rps", Bench: true, Doc: "highest rate (req/s) meeting every objective"},
	{Name: "max_concurrency", Kind: Search, BenchUnit: "max-concurrency", Bench: true, Doc: "highest concurrency meeting every objective"},
	// An Ollama endpoint's own split of the TTFT (means over the breakdown
	// requests), reported by benchmarks beside the client's figures.
	{Name: "load", Kind: Server, Lower: true, BenchUnit: "load-ms", Bench: true, Doc: "Ollama load_duration"},
	{Name: "prefill", Kind: Server, Lower: true, BenchUnit: "prefill-ms", Bench: true, Doc: "Ollama prompt_eval_duration"},
	{Name: "netq", Kind: Server, Lower: true, Signed: true, BenchUnit: "netq-ms", Bench: true, Doc: "TTFT − load − prefill: network and queue"},
	{Name: "server_tok", Kind: Server, BenchUnit: "server-tok/s", Bench: true, Doc: "Ollama eval_count / eval_duration"},
}

func scheduled(st *stats.Stats) bool { return st.Open.Scheduled }

// fitted is v when the run has a prefill fit, NaN (not measured) when it
// has none: a fit's zero value is not a prefill cost of 0.
func fitted(st *stats.Stats, v float64) float64 {
	if st.Prefill.N == 0 {
		return math.NaN()
	}
	return v
}

type qualityResult = qualityPkg.Result

// quality reads a quality outcome of a request that has a quality result.
func quality(read func(*qualityResult) (checked, passed bool)) func(*sample.Sample) (bool, bool) {
	return func(s *sample.Sample) (bool, bool) {
		if s.Quality == nil {
			return false, false
		}
		return read(s.Quality)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
