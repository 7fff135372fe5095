// Command llmsla runs and judges LLM endpoint benchmarks.
//
//	llmsla bench            run the suites' benchmarks, record them, print SLA verdicts
//	llmsla verdict FILE…    SLA verdicts from recorded samples files (shards merge)
//	llmsla report [FILE…]   model selection: endpoints ranked by quality, latency and cost
//	llmsla compare A [B]    comparison of recorded runs, one line per figure
//	llmsla gate BASE NEW    exit 1 on a significant regression
//	llmsla ab BASE CAND     interleave two endpoints' requests and gate them
//	llmsla baseline         promote the latest run (and its samples) to golden/
//	llmsla capacity         the highest load at which every objective holds
//	llmsla sim              serve the built-in simulator
//	llmsla trace            analyze, rescale (synth) or make (from-log) a trace to replay
//
// Exit codes: 0 pass, 1 an SLA or gate failed, 2 the run or its input is
// unusable (bad configuration, missing file, go test broke).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"bench":    runBench,
	"verdict":  runVerdict,
	"report":   runReport,
	"compare":  runCompare,
	"gate":     runGate,
	"ab":       runAB,
	"baseline": runBaseline,
	"sim":      runSim,
	"capacity": runCapacity,
	"trace":    runTrace,
}

func main() {
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		if os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "--help" {
			usage(os.Stdout)
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "llmsla: unknown command %q\n", os.Args[1])
		usage(os.Stderr)
		os.Exit(2)
	}
	os.Exit(cmd(os.Args[2:], os.Stdout, os.Stderr))
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: llmsla <command> [flags]

  bench            run the suites' benchmarks, record results/, print SLA verdicts
  verdict FILE...  SLA verdicts from samples files (results/*.samples.jsonl); shards merge
  report [FILE...] model selection over endpoints: quality, latency, cost, Pareto
                   front, recommendation (-format text|markdown|json|csv|html,
                   -prefer cost|latency, -o FILE); default results/latest.samples.jsonl
  compare A [B]    one line per benchmark × key figure (-col, -filter; -full: benchstat's tables)
  gate BASE NEW    exit 1 on a significant regression, 2 on unusable input (-plan: requests needed)
  ab BASE CAND     send two endpoints the same cases, interleaved, and gate CAND against BASE
  baseline         promote results/latest.txt and its samples to golden/baseline.*
  capacity         the highest load meeting every objective (-scenario, -by rate|concurrency|speedup)
  sim              serve the built-in simulator (-addr, -spec)
  trace            analyze FILE, synth -o OUT FILE, from-log -o OUT LOG…: traces to replay (trace: in sla.yaml)
`)
}

// parseFailed is a command's exit code when its flags did not parse: 0 for
// -h, which asked for the usage the flag package printed, else 2.
func parseFailed(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}
