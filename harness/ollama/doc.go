// Package ollama reads an Ollama endpoint's own timings, which its
// OpenAI-compatible API does not report: [Chat] talks the native /api/chat,
// whose final chunk carries load_duration, prompt_eval_duration and
// eval_duration; [Breakdown] splits one request's client TTFT by them into
// model load, prefill and network+queue (the names of METRICS.md); and
// [Measure] does so for a scenario's prompts, summarised as means that add
// up ([Summary]). [Unload] makes the next request cold again; [PS] lists
// the loaded models and the memory and VRAM each holds (/api/ps).
//
// Serving a real Ollama for tests is package ollamatest's job.
package ollama
