// Command llmsla runs and judges LLM endpoint benchmarks: `llmsla help`
// lists its commands (the table below is the one list), `llmsla CMD -h`
// each command's flags.
//
// Exit codes: 0 pass, 1 an SLA or gate failed, 2 the run or its input is
// unusable (bad configuration, missing file, go test broke).
package main

import (
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// command is one subcommand: how it is called and what it does, in the
// words `llmsla help` prints.
type command struct {
	name, args, does string
	run              func(args []string, stdout, stderr io.Writer) int
}

// commands is every subcommand, in the order help lists them.
var commands = []command{
	{"bench", "", "run the suites' benchmarks (plan and preflight first), record results/, print SLA verdicts", runBench},
	{"verdict", "FILE…", "SLA verdicts from recorded samples files (results/*.samples.jsonl); shards merge", runVerdict},
	{"report", "[FILE…]", "model selection: endpoints ranked by quality, latency and cost (-format text|markdown|json|csv|html)", runReport},
	{"compare", "A [B]", "comparison of recorded runs, one line per benchmark × key figure (-full: benchstat's tables)", runCompare},
	{"gate", "BASE NEW", "exit 1 on a significant regression, 2 on unusable input or a blind objective (-plan: requests needed)", runGate},
	{"ab", "BASE CAND", "send two endpoints a scenario's cases, interleaved, and gate CAND against BASE", runAB},
	{"baseline", "", "promote results/latest.txt and its samples to golden/baseline.*", runBaseline},
	{"capacity", "", "the highest load at which every objective of a scenario holds (-scenario, -by rate|concurrency|speedup)", runCapacity},
	{"sim", "", "serve the built-in simulator (-addr, -spec)", runSim},
	{"judge", "calibrate", "a judge's agreement with labelled answers (-labels, -rubric, -vs)", runJudge},
	{"trace", "analyze|synth|from-log", "a trace to replay (trace: in sla.yaml): its rate, lengths and prefixes; rescaled; made from production's logs", runTrace},
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the command args name, or says what the commands are.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitBroken
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return exitOK
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "llmsla: unknown command %q\n", args[0])
		usage(stderr)
		return exitBroken
	}
	return commands[i].run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: llmsla <command> [flags]  (llmsla <command> -h: its flags)")
	fmt.Fprintln(w)
	width := 0
	for _, c := range commands {
		width = max(width, len(strings.TrimSpace(c.name+" "+c.args)))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, strings.TrimSpace(c.name+" "+c.args), c.does)
	}
}

// parseFailed is a command's exit code when its flags did not parse: 0 for
// -h, which asked for the usage the flag package printed, else 2.
func parseFailed(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitBroken
}

// usages are each command's usage text (usage/NAME.txt), printed by -h
// before its flags, kept beside the code that parses what it describes.
//
//go:embed usage/*.txt
var usages embed.FS

// usageOf is a command's usage text.
func usageOf(name string) string {
	b, err := usages.ReadFile("usage/" + name + ".txt")
	if err != nil {
		panic(err) // embedded: cannot be missing
	}
	return string(b)
}
