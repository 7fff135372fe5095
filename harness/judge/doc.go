// Package judge asks a model whether an answer is good, where no exact
// check can say: a summary faithful to its source, a support reply that
// helps. It is llmsla's LLM-as-judge, run on the answers of the timed run.
//
// The parts fit like this:
//
//   - Package rubric (harness/judge/rubric) is what is asked: a rubric
//     file, the judge's prompt written and read back, the verdict's
//     schema, labelled answers. It imports nothing of llmsla but the leaves
//     harness/escape and harness/internal/jsonl, so that the simulator's judge reads the prompt the
//     judge writes without depending on the rest.
//   - [Parse] reads a judge's answer as a verdict, strictly: prose, JSON
//     that breaks the verdict's schema, or a pass that contradicts its
//     score is a failure with that reason, never a verdict.
//   - A [Judge] answers [Ask]s: from its [Cache] (a JSONL file keyed by
//     the judge's model and digest, the prompt's version, the rubric and
//     the question, reference and answer, all hashed: [Key]) or by one
//     request at temperature 0 with a seed, asking for the verdict's
//     schema as structured output; a request that fails, times out or
//     answers no verdict fails the ask, wrapping one of [Failures], and
//     is not cached.
//   - [Summarize] adds up a judge's own requests — sent, failed by kind,
//     latency, tokens — apart from every measured figure.
//   - Calibration holds a judge to human labels ([Compare]: accuracy,
//     Cohen's kappa, the confusion table), to another judge ([Between]),
//     and shows how its scores follow the answers' length ([LengthOf]).
//
// Package session sends the asks of a level after its measured requests,
// never among them, and folds the verdicts into each sample's quality
// (quality.SetJudgment); the metric table's judge_pass and judge_score read
// them from there.
package judge
