package server

import "strings"

// figure is one quantity the figures read, and the families that give it
// on the servers llmsla knows: vLLM, SGLang, TGI and llama.cpp
// (--metrics). A counter family is named with or without its _total, as
// the exposition's TYPE line names it (prometheus_client writes it with).
type figure int

const (
	fWaiting    figure = iota // gauge: requests queued (summed over series)
	fRunning                  // gauge: requests in the batch (summed)
	fKV                       // gauge: KV-cache usage, a fraction (the highest series)
	fCacheRate                // gauge: a prefix-cache hit rate the server computes (SGLang)
	fRequests                 // counter: requests finished (every finished_reason)
	fPreempt                  // counter: preemptions
	fCacheQuery               // counter: prefix-cache tokens looked up
	fCacheHit                 // counter: of them, found
	fTTFT                     // histogram: time to first token, seconds
	fE2E                      // histogram: end-to-end latency, seconds
	fModelSize                // gauge (Ollama's /api/ps): a loaded model's size, bytes
	fModelVRAM                // gauge (Ollama's /api/ps): of it, in VRAM
	fRSS                      // gauge (the process): resident memory, bytes
	fCPU                      // counter (the process): CPU seconds
	nFigures
)

// families are the family names of each figure, by the source that gives
// them: the process's own families are not those a /metrics calls
// process_* (vLLM's are its API server's alone).
var families = map[string]map[figure][]string{
	SourceMetrics: {
		fWaiting:    {"vllm:num_requests_waiting", "sglang:num_queue_reqs", "tgi_queue_size", "llamacpp:requests_deferred"},
		fRunning:    {"vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size", "llamacpp:requests_processing"},
		fKV:         {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage", "llamacpp:kv_cache_usage_ratio"},
		fCacheRate:  {"sglang:cache_hit_rate", "vllm:gpu_prefix_cache_hit_rate"},
		fRequests:   {"vllm:request_success", "sglang:num_requests", "tgi_request_success"},
		fPreempt:    {"vllm:num_preemptions"},
		fCacheQuery: {"vllm:prefix_cache_queries"},
		fCacheHit:   {"vllm:prefix_cache_hits"},
		fTTFT:       {"vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds"},
		fE2E:        {"vllm:e2e_request_latency_seconds", "sglang:e2e_request_latency_seconds", "tgi_request_duration"},
	},
	SourceOllama: {
		fModelSize: {OllamaSize},
		fModelVRAM: {OllamaVRAM},
	},
	SourceProcess: {
		fRSS: {ProcessRSS},
		fCPU: {ProcessCPU},
	},
}

// The families the Ollama and process sources write.
const (
	OllamaSize = "ollama_model_size_bytes"
	OllamaVRAM = "ollama_model_vram_bytes"
	ProcessRSS = "process_resident_memory_bytes"
	ProcessCPU = "process_cpu_seconds_total"
)

// figureOf says which figure a family of a source gives, false for none.
func figureOf(source, name string) (figure, bool) {
	base := strings.TrimSuffix(name, "_total")
	for f, names := range families[source] {
		for _, n := range names {
			if n == name || strings.TrimSuffix(n, "_total") == base {
				return f, true
			}
		}
	}
	return 0, false
}

// figureFamily reports whether a /metrics family is one the figures read:
// kept whole when the others are sampled.
func figureFamily(name string) bool {
	_, ok := figureOf(SourceMetrics, name)
	return ok
}
