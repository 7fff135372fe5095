// Package gate compares recorded benchmark runs and turns the comparison
// into a pass/fail decision for a deploy pipeline.
//
// A recorded run is Go benchmark output (benchfmt), one figure per unit,
// each benchmark repeated with -count, and beside it the samples file of
// every request (results/X.txt ↔ results/X.samples.jsonl, see
// recording.Source).
// The entry points:
//
//   - [Gate] decides whether a candidate is worse than a base;
//   - [GateRequests] does the same from samples alone: the two endpoints
//     of an interleaved A/B run (load.Interleave records them: the same
//     cases, interleaved), or runs sent by shards;
//   - [Plan] says how many requests a change needs to be seen;
//   - [Check] reads a recording as Gate would, to refuse a baseline it
//     could not compare.
//
// Reading the files is harness/recording's (which fails closed: a corrupt
// or cut line, runs recorded twice); describing them side by side without
// deciding, benchstat's tables, harness/compare's; the statistics,
// harness/internal/inference's.
//
// # The decision
//
// Each figure is asked one question, one-sided: is the candidate worse?
// Direction comes from "Unit <unit> better=lower|higher" metadata (or the
// project's unit names). A figure regresses when it is significantly worse
// after Holm–Bonferroni within its family and its estimate is worse by
// more than its tolerance (10% and 1 ms for latencies by default; [Options]).
//
// Figures are judged on requests where both sides recorded them:
//
//   - latency percentiles (family latency): a rank test on the pooled
//     requests of a scenario × endpoint, its load levels as strata, whose
//     scores weigh the part of the distribution the percentile describes;
//     corrected for drift between runs, measured on the runs
//     (inference.RunTailTest, in harness/internal/inference);
//   - proportions (family quality): accuracy, schema-valid and json-valid
//     with a scenario's levels pooled and requests paired by fixture case,
//     errors with levels as strata; an exact stratified test
//     (inference.ExactStratified). A
//     quality regression names the cases that newly fail.
//
// Every other figure, and all of them when a side has no samples, is
// judged over runs with the Mann-Whitney U test (family runs). Each family
// has its own α (latency 0.05, quality 0.005, runs 0.025 by default), so
// adding scenarios does not blind the gate to quality. The report says what
// each family covers and, per scenario × endpoint, the minimal detectable
// effect at 80% power for the sample sizes at hand (power.go).
//
// A report's [Report.Verdict] is FAIL when a figure regressed or vanished,
// else BLIND when a latency percentile was blind — no change of it,
// however large, would have been flagged at these sample sizes — unless
// Options.AllowBlind lets it pass (blind.go), else PASS.
//
// # Unusable input
//
// Errors that mean "this comparison cannot be made" wrap
// recording.ErrUnusable: a missing or unreadable file, a corrupt line named file:line (benchfmt's
// *SyntaxError, a NaN, infinite or negative value, a last line cut short,
// runs recorded twice), a benchmark of the base missing from the
// candidate (unless Options.Filter leaves it out or AllowMissing), samples
// of another recording, no benchmark in common, or too few runs for any
// change to be significant. The CLI maps these, and a BLIND verdict, to
// exit status 2, a regression to 1.
//
// # Benchmark names
//
// benchfmt reads a trailing "-<digits>" on a benchmark name as GOMAXPROCS.
// The gate ignores that suffix (Options.MatchProcs keeps it), with a
// warning when the sides differ: it is the client's core count, not what
// was measured. recording.Values must still be escaped when names are built
// (model=gpt-4 would read as model=gpt at GOMAXPROCS 4); the harness does.
// A benchmark Name/endpoint=E/<level> meets the samples of scenario name
// (case aside), endpoint E and that level.
//
// # Sequential
//
// [GateSequential] judges a candidate at planned looks as it is recorded
// (sequential.go): each family spends its α over the looks
// (O'Brien–Fleming-like, Lan–DeMets), each look tested at the boundary of
// the looks' joint distribution (inference.SpendingLevels), and a look that flags nothing even
// at a lenient level and half the tolerances stops it as unchanged.
package gate
