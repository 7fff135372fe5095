// Package verdict judges recorded runs against the configuration they
// were measured under, for the commands that judge what was recorded
// (llmsla verdict, report, gate, baseline), which print what it returns.
// It sends nothing.
//
// [Against] is that configuration: the SLA file the run's samples
// recorded (config.Config.Record), refused when it changed since; a flag
// names another. [Load] reads samples files and directories with one set
// of checks, and the servers' readings beside them, into a [Run]: its
// verdicts, what it was ([Run.Info]), its model-selection board and the
// summary a bench writes. [LogRun] reads production's request logs as a
// run judged window by window ([Window]). [Decide] and [Bound] are the
// gate's use of the SLA file (its gate: section under the flags, the
// objectives that keep a blind figure from passing); [Gate], [GateShards]
// and [GateLog] are the sides a gate compares beyond two results files;
// [CheckBaseline] what a baseline must be before it is promoted;
// [Breakdowns] where an Ollama benchmark's TTFT went.
package verdict
