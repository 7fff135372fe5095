package metric

import (
	"math"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// serverRows are the figures of the server's own account of a level
// (METRICS.md, server metrics): read from its metrics scraped over the
// level (stats.Stats.Server), NaN — not measured — without them; and how
// its usage agreed with the stream, read from the samples.
var serverRows = []*Metric{
	{Name: "queue_p95", Kind: Figure, Lower: true, BenchUnit: "srv-queue-p95", Bench: true, Threshold: true, Needs: needsScrape,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.QueueP95(), len(s.Queue) })},
	{Name: "queue_max", Kind: Figure, Lower: true, BenchUnit: "srv-queue-max", Bench: true, Needs: needsScrape,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.QueueMax, len(s.Queue) })},
	// Running requests are neither better nor worse higher (a bigger
	// batch, or a slower one), so they are shown, not gated.
	{Name: "running_max", Kind: Figure, BenchUnit: "srv-running-max", Needs: needsScrape,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.RunningMax, read(s) })},
	{Name: "kv_cache", Kind: Fraction, Lower: true, BenchUnit: "kv-peak-%", Bench: true, Threshold: true, Needs: needsScrape,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.KVPeak, read(s) })},
	{Name: "preemptions", Kind: Figure, Lower: true, BenchUnit: "srv-preemptions", Bench: true, Threshold: true, Needs: needsCounters,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.Preemptions, s.Sent })},
	{Name: "prefix_hit", Kind: Fraction, BenchUnit: "prefix-hit-%", Bench: true, Threshold: true, Needs: needsCounters,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.PrefixHit(), s.Sent })},
	{Name: "srv_ttft", Kind: Latency, Lower: true, Report: []int{50, 95, 99}, Threshold: true, Needs: needsHistogram,
		Dist: fromHistogram(func(s *stats.Server) stats.Buckets { return s.TTFT })},
	{Name: "srv_e2e", Kind: Latency, Lower: true, Report: []int{50, 95}, Threshold: true, Needs: needsHistogram,
		Dist: fromHistogram(func(s *stats.Server) stats.Buckets { return s.E2E })},
	// The agreement figures: judged, not gated (their change run to run
	// says nothing a latency does not).
	{Name: "ttft_gap", Kind: Figure, Lower: true, BenchUnit: "ttft-gap-ms", Threshold: true, Needs: needsHistogram + ", and a client TTFT",
		Value: func(st *stats.Stats) (float64, int) {
			gap, _ := st.TTFTGap()
			return gap, st.TTFT.N
		},
		Detail: func(st *stats.Stats) string {
			_, d := st.TTFTGap()
			return d
		}},
	{Name: "foreign", Kind: Change, Lower: true, BenchUnit: "foreign-%", Threshold: true, Needs: needsCounters + ", from one process (not a sharded run)",
		Value:  fromServer(func(s *stats.Server) (float64, int) { return s.Foreign(), s.Sent }),
		Detail: foreignDetail},
	{Name: "model_mem", Kind: Figure, Lower: true, BenchUnit: "model-mem-mb", Bench: true, Threshold: true, SLAKey: "model_mem_max_mb", Needs: needsPS,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.ModelMem / MB, read(s) })},
	{Name: "model_vram", Kind: Figure, Lower: true, BenchUnit: "model-vram-mb", Bench: true, Threshold: true, SLAKey: "model_vram_max_mb", Needs: needsPS,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.ModelVRAM / MB, read(s) })},
	{Name: "memory", Kind: Figure, Lower: true, BenchUnit: "mem-peak-mb", Bench: true, Threshold: true, SLAKey: "memory_max_mb", Needs: needsProcess,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.RSS / MB, read(s) })},
	{Name: "cpu", Kind: Figure, Lower: true, BenchUnit: "srv-cpu-cores", Bench: true, Needs: needsProcess,
		Value: fromServer(func(s *stats.Server) (float64, int) { return s.CPUCores(), read(s) })},
	{Name: "tokens_disagree", Kind: Fraction, Lower: true, BenchUnit: "tokens-disagree-%", Bench: true, Threshold: true,
		Needs: "successful requests whose server sent usage (stream_options include_usage)",
		Value: func(st *stats.Stats) (float64, int) { return st.Tokens.Rate(), st.Tokens.Checked },
		Outcome: func(s *sample.Sample) (bool, bool) {
			d, checked := stats.TokensDisagree(s)
			return checked, d == nil
		},
		Detail: func(st *stats.Stats) string { return st.Tokens.Detail() }},
}

// MB is the unit of the memory figures: a million bytes, as Ollama's own
// ps writes sizes.
const MB = 1e6

// What each kind of server figure needs, for the line that says an
// objective on it was not measured.
const (
	needsScrape    = "the server's metrics scraped over the level (server_metrics:, or a /metrics at the base URL in the Prometheus text format)"
	needsCounters  = needsScrape + ", the readings before and after the level both taken"
	needsHistogram = needsCounters + ", with a latency histogram (vLLM's, SGLang's)"
	needsPS        = "an Ollama endpoint (kind: ollama), whose /api/ps gives its models' sizes"
	needsProcess   = "the server's process on this machine (server_pid:, or a loopback base URL whose port it listens on)"
)

// fromServer reads a figure of the server's account, NaN without one.
func fromServer(read func(*stats.Server) (float64, int)) func(*stats.Stats) (float64, int) {
	return func(st *stats.Stats) (float64, int) {
		if st.Server == nil {
			return math.NaN(), 0
		}
		return read(st.Server)
	}
}

// fromHistogram reads one of the server's latency histograms as a
// distribution in ms, empty (NaN) without one.
func fromHistogram(h func(*stats.Server) stats.Buckets) func(*stats.Stats) stats.Summary {
	return func(st *stats.Stats) stats.Summary {
		if st.Server == nil {
			return stats.Buckets{}.Summary()
		}
		return h(st.Server).Summary()
	}
}

// read is the readings behind a gauge: those that did not fail.
func read(s *stats.Server) int { return s.Readings - s.Failed }

func foreignDetail(st *stats.Stats) string {
	s := st.Server
	if s == nil || math.IsNaN(s.Foreign()) {
		return ""
	}
	return s.ForeignText()
}
