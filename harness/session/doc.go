// Package session runs the measurements: it is the orchestrator between
// the configuration and the pipeline, usable by a command as by go test.
//
// A [Session] holds what one process shares across scenarios: one client
// per endpoint (connections pooled across scenarios), the built-in
// simulators (served on loopback, told the right and wrong answer to every
// fixture case), where each scenario is in its fixture, which runs have had
// their cold request and warm-up, the slots of a sharded run, the samples
// file and the progress events. [Session.Measure] sends one level of a
// scenario on an endpoint ([Cell]); [Session.Capacity] searches the highest
// load that holds; [Session.Breakdown] asks an Ollama server where its TTFT
// went.
//
// [Child] is the one protocol between the llmsla command and the go test
// binary it starts: a struct the command encodes into the child's
// environment and the test binary decodes. The package harness (the go
// test glue) turns a session's measurements into tests and benchmarks;
// this package does not import testing.
package session
