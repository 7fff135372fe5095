// Package harness is llmsla's go test glue: it turns a scenario into Go
// tests and benchmarks over the endpoints of the configuration. The
// measuring itself is done by the packages below it, in pipeline order:
//
//	stream     one request, timed into a sample (SSE loop, error kinds)
//	load       who sends what and when (Source, Pacer, Doer, Runner)
//	trace      production's traffic: traces to replay, request logs to judge
//	sample     the per-request record and its JSONL file
//	stats      samples → the figures of a run
//	metric     the one table of figures: units, SLA keys, directions
//	objective  thresholds, goodput, verdicts as views over samples
//	config     sla.yaml, the environment, or the built-in simulator
//	capacity   the search for the highest load that holds
//	gate       benchfmt runs compared with benchstat's statistics
//	report     tables people read
//
// Beside them: secret redacts the configuration's keys from every byte
// written, quality judges answers, sim is the simulator the tests measure
// against, ollama reads an Ollama server's own timings (ollama/ollamatest
// serves one for tests), server reads a server's own metrics over each
// level (/metrics, /api/ps, its process), report/html draws the model-selection board,
// atomicfile writes results whole, internal/modroot finds the module root.
//
// None of those imports testing; this package does. A suite declares a
// [Scenario] with [Define] and calls [Run] (subtests that fail on violated
// objectives) and [Bench] (benchmarks reporting every figure of the metric
// table with b.ReportMetric). A [Session] holds the per-process state: one
// client per endpoint, the simulators, where each scenario is in its
// fixture, and which runs have had their cold request.
package harness
