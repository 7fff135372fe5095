// Package gate compares recorded benchmark runs and turns the comparison
// into a pass/fail decision for a deploy pipeline.
//
// Runs are Go benchmark output (benchfmt), one figure per unit, each
// benchmark repeated with -count so every (benchmark, unit) has a sample of
// values per file. Two entry points share one loader:
//
//   - [Compare] prints a benchstat-style table (median ± CI, delta, p, n)
//     and accepts benchstat's -col, -row and -filter projection syntax
//     (golang.org/x/perf/benchproc). With -col /endpoint a single file is
//     enough to put endpoints side by side.
//   - [Gate] decides. benchstat itself never fails on a regression, so the
//     decision is made here from golang.org/x/perf/benchmath primitives.
//
// # The decision
//
// For every (benchmark, unit) present in both the base and the new file,
// the direction comes from "Unit <unit> better=lower|higher" metadata; a
// unit without it is inferred (*-ms lower, err-% lower, */s and other *-%
// higher) or skipped with a warning. ns/op, which the harness reports as 0
// to hide it, is dropped on reading. The two samples are compared
// with the Mann-Whitney U test, which assumes no distribution: latency
// percentiles are skewed and the run count is small.
//
// One run of the gate makes many comparisons (metrics × benchmarks). At
// α = 0.05 each, twenty unchanged figures would raise a false alarm most of
// the time. The p-values are therefore corrected with Holm–Bonferroni,
// which bounds the probability of any false significance across the whole
// family at α without assuming the figures are independent (ttft and total
// latency are not). Holm is uniformly more powerful than plain Bonferroni.
//
// A figure regresses when all three hold: it moved in the worse direction,
// it is significant after Holm, and the change of medians exceeds its
// tolerance. The tolerance keeps a statistically real but operationally
// irrelevant 2% drift from blocking a deploy. Defaults are 10% relative for
// *-ms and */s units and 1 point absolute for *-% units; see
// [DefaultTolerances] and [Options].
//
// # Unusable input
//
// Errors that mean "this comparison cannot be made" wrap [ErrUnusable]:
// a missing or unreadable file, a corrupt line (reported as file:line, from
// benchfmt's *SyntaxError), no benchmark in common, or too few runs for the
// test ever to reach significance (Mann-Whitney at α = 0.05 needs at least
// 4 runs per side; more once Holm divides α among many comparisons). The
// CLI maps these to exit status 2, a regression to 1.
//
// # Benchmark names
//
// benchfmt reads a trailing "-<digits>" on a benchmark name as GOMAXPROCS,
// so a sub-benchmark value such as model=gpt-4 would become model=gpt with
// GOMAXPROCS 4, and names would silently merge or fail to match. Values
// must be escaped when the benchmark name is built; the bench writer in
// this project does so. Names must also match exactly between base and
// new, including the -N suffix, so record both on the same machine shape.
// The iteration count is not in the name but shapes the figures (one
// iteration is one request, and a p95 of 10 requests is not a p95 of 20),
// so Gate warns when it differs between the two files.
package gate
