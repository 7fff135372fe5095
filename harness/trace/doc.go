// Package trace reads production's traffic so that llmsla can send it
// again, and production's request logs so that the SLA file can judge
// them: the bridge between what a deployment saw and what CI measures.
//
// A trace is a file of requests with their arrival instants and lengths:
// Mooncake's JSONL (timestamp in ms, input_length, output_length,
// hash_ids), Azure's LLM inference trace CSV (TIMESTAMP, ContextTokens,
// GeneratedTokens), or any JSONL or CSV with a column mapping ([Spec],
// [Columns]). A [Reader] streams one [Row] at a time, never the whole
// file, and refuses a bad row or a timestamp out of order as a [RowError]
// naming the file and line; [Scan] reads the file once before a replay so
// that every such error comes before the first request, and keeps what a
// plan needs ([Summary]). Package load replays the rows (load.Trace).
//
// [Analyze] describes a trace (rate over time, length distributions, the
// gamma shape of its gaps, the share of prompt tokens in shared prefixes);
// [Synth] rescales one (speedup, length multipliers, a seeded subsample);
// [Generate] writes a synthetic one with known properties, the shipped
// traces/sample.mooncake.jsonl among them.
//
// A request log is one JSON object per request (by default the field
// names of the structlog example llmsla's seed articles give: endpoint,
// model, ttft_ms, tpot_ms, output_tokens, total_ms, timestamp, error),
// read by [ReadLog] into samples labelled by time window, so that
// objective.Evaluate judges production with the same objectives as a
// bench; [FromLog] turns such a log into a replayable trace.
package trace
