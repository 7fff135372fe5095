// Package harness is llmsla's go test glue: it turns a scenario into Go
// tests and benchmarks over the endpoints of the configuration. A suite
// declares a [Scenario] with [Define] and calls [Run] (subtests that fail
// on violated objectives) and [Bench] (benchmarks reporting every figure
// of the metric table with b.ReportMetric), both over one session per
// test binary (package session: the clients, the simulators, the
// schedule, and the observers every level is told about).
//
// None of the packages below imports testing; this one does. What each
// package is for, how a request flows through them, the words the code
// uses (request, level, cell, repetition, recording) and the rule that
// keeps the import graph in shape are in docs/architecture.md; each
// package's own doc says the rest.
package harness
