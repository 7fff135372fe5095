// Package harness measures OpenAI-compatible LLM endpoints and turns their
// service levels into Go tests and benchmarks.
//
// The parts, from one request up:
//
//   - [Client] sends one streaming chat completion and times it into a
//     [Sample]: ttfb, ttft, ttfa, total, tokens (from usage, or estimated),
//     inter-token gaps, connection phases, finish reason — and, when it
//     fails, an [ErrorKind] (errors.Is with [ErrTimeout], [ErrRateLimited], …).
//     A failed request is a sample, never an error return or a panic.
//   - [Runner] sends a scenario's [Prompts] closed-loop at a concurrency
//     level, with a cold first request and a warm-up kept apart, and a
//     quality check ([quality.Check]) on every answer.
//   - [Summarize] turns samples into [Stats] as METRICS.md defines them;
//     an [SLA] of [Threshold]s, parsed once from the configuration, checks
//     them ([SLA.Check]) and says what was violated, one line each.
//   - [Config] (sla.yaml, the environment, or the built-in simulator of
//     package sim) names the endpoints and each scenario's settings and SLA;
//     every mistake in it is reported with file, line and key before any
//     request is sent.
//   - [Session] ties these together for the suites: [Run] measures a
//     [Scenario] as subtests and fails on violated objectives; [Bench]
//     reports the same figures as benchmark units for benchstat and the gate.
//   - Samples are data: every one can be appended to a JSONL file
//     ([SampleFile]), and [Verdicts] recomputes the SLA table from such
//     files, so runs and shards merge and reports are views.
package harness
