// Command llmsla runs and judges LLM endpoint benchmarks.
//
//	llmsla bench            run the suites' benchmarks, record them, print SLA verdicts
//	llmsla verdict FILE…    SLA verdicts from recorded samples files (shards merge)
//	llmsla report [FILE…]   model selection: endpoints ranked by quality, latency and cost
//	llmsla compare A [B]    benchstat comparison of recorded runs
//	llmsla gate BASE NEW    exit 1 on a significant regression
//	llmsla baseline         promote the latest run to golden/baseline.txt
//	llmsla capacity         the highest load at which every objective holds
//	llmsla sim              serve the built-in simulator
//
// Exit codes: 0 pass, 1 an SLA or gate failed, 2 the run or its input is
// unusable (bad configuration, missing file, go test broke).
package main

import (
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
	"baseline": runBaseline,
	"sim":      runSim,
	"capacity": runCapacity,
}

func main() {
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		if os.Args[1] != "help" && os.Args[1] != "-h" && os.Args[1] != "--help" {
			fmt.Fprintf(os.Stderr, "llmsla: unknown command %q\n", os.Args[1])
		}
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
  compare A [B]    benchstat comparison (-col, -row, -filter)
  gate BASE NEW    exit 1 on a significant regression, 2 on unusable input
  baseline         promote results/latest.txt to golden/baseline.txt
  capacity         the highest load meeting every objective (-scenario, -by rate|concurrency)
  sim              serve the built-in simulator (-addr, -spec)
`)
}
