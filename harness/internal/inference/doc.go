// Package inference is the statistics behind llmsla's decisions: the
// tests, estimators and power calculations that harness/gate turns into a
// verdict and harness/report uses to rank endpoints. It knows nothing of
// benchmark files, samples or reports: its inputs are numbers grouped as
// the tests need them (levels, runs, strata), and its outputs are
// statistics, p-values and powers.
//
//   - [RunTailTest]: a rank test of a latency percentile over load levels
//     and runs, corrected for the drift between runs ([PoolDrift]);
//   - [ExactStratified]: an exact test of a proportion within strata
//     (Fisher's with one stratum, McNemar's with pairs);
//   - [MannWhitney]: the U test over two samples taken as independent
//     draws, as benchstat computes it, with [MinP] and [RunsNeeded] saying
//     what sample sizes can reach a level at all;
//   - [HolmAdjust]: the Holm–Bonferroni correction of a family of tests;
//   - [HarrellDavis]: a quantile estimate that rests on every order
//     statistic;
//   - intervals at a fixed n: [QuantileRanks], the exact order-statistic
//     interval of a quantile, and [ClopperPearson]'s of a rate;
//   - intervals at every n at once: a [Sequence] (Howard–Ramdas's
//     beta-binomial confidence sequence, each side its own one-sided
//     mixture) of a quantile ([Sequence.Ranks])
//     or a rate ([Sequence.Rate], [Sequence.Decide]), which a level may
//     look at after every request and stop on;
//   - the power of those tests against a stated shape of change
//     ([LatencyPower], [ProportionPower], [CasesFlagged]) and [Solve] for
//     the smallest change reaching [Power].
//
// It is internal: its API follows what the gate and the report need, and
// changes with them.
package inference
