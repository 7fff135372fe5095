// Package judge asks a model whether an answer is good, where no exact
// check can say: a summary faithful to its source, a support reply that
// helps. It is llmsla's LLM-as-judge, run on the answers of the timed run.
//
// The parts fit like this:
//
//   - A [Rubric] (a YAML file, fixtures/rubrics/) says in words what a good
//     answer is, on a scale — pass_fail, or 1–5 with the threshold from
//     which an answer passes — and whether the judge sees the case's
//     reference answer. [LoadRubric] reports every mistake as
//     file:line: key: what is wrong, before any request.
//   - [Messages] writes the judge's prompt (the rubric, then the question,
//     the reference and the answer between tags that no answer can close),
//     and [ReadPrompt] reads it back: the simulator's judge answers from it.
//   - A [Verdict] is {score, pass, reason}, asked for as structured output
//     ([Rubric.Schema]) and parsed strictly ([Rubric.Parse]): prose, JSON
//     that breaks the schema, or a pass that contradicts its score is a
//     failure with that reason, never a verdict.
//   - A [Judge] answers [Ask]s: from its [Cache] (a JSONL file keyed by
//     the judge's model and digest, the prompt's version, the rubric and
//     the question, reference and answer, all hashed) or by one request at
//     temperature 0 with a seed; a request that fails, times out or
//     answers no verdict fails the ask, and is not cached.
//   - [Summarize] adds up a judge's own requests — sent, failed by kind,
//     latency, tokens, cost — apart from every measured figure.
//   - Calibration ([LoadLabels], [Agreement]) holds a judge to human labels:
//     accuracy, Cohen's kappa, the confusion table, agreement between two
//     judges, and the correlation of score with answer length.
//
// Package session sends the asks of a level after its measured requests,
// never among them, and folds the verdicts into each sample's quality
// (quality.SetJudgment); the metric table's judge_pass and judge_score read
// them from there.
package judge
