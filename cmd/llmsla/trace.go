package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/trace"
	"github.com/llmsla/llmsla/harness/verdict"
)

// runTrace runs a trace subcommand.
func runTrace(args []string, stdout, stderr io.Writer) int {
	sub := map[string]func([]string, io.Writer, io.Writer) int{"analyze": traceAnalyze, "synth": traceSynth, "from-log": traceFromLog}
	if len(args) == 0 || sub[args[0]] == nil {
		fmt.Fprint(stderr, usageOf("trace"))
		if len(args) > 0 && (args[0] == "-h" || args[0] == "help") {
			return exitOK
		}
		return exitBroken
	}
	return sub[args[0]](args[1:], stdout, stderr)
}

// traceFlags declares the flags that say how to read a trace and returns
// the spec they make once fs is parsed.
func traceFlags(fs *flag.FlagSet) func(file string) (trace.Spec, error) {
	format := fs.String("format", "mooncake", "the trace's `format`: mooncake, azure_csv, jsonl or csv")
	start := fs.Duration("start", 0, "replay from this `offset` into the trace")
	end := fs.Duration("end", 0, "up to this `offset` (0: to the end)")
	cols := fs.String("columns", "", "the column mapping, `key=name,…` (keys: timestamp, unit, input, output, messages, hash_ids)")
	block := fs.Int("block", trace.DefaultBlock, "the prompt `tokens` each hash id stands for")
	return func(file string) (trace.Spec, error) {
		c, err := trace.ParseColumns(*cols)
		if err != nil {
			return trace.Spec{}, fmt.Errorf("-columns: %w", err)
		}
		spec := trace.Spec{File: file, Format: trace.Format(*format), Start: *start, End: *end, Columns: c, Block: *block}
		return spec, spec.Validate()
	}
}

// traceSet is a trace subcommand's flag set; -out is refused naming -o.
func traceSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := newFlags("trace "+name, usageOf("trace"), stderr)
	misnamed(fs, "out", useO)
	return fs
}

func traceAnalyze(args []string, stdout, stderr io.Writer) int {
	fs := traceSet("analyze", stderr)
	spec := traceFlags(fs)
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, usageOf("trace"))
		return exitBroken
	}
	s, err := spec(fs.Arg(0))
	if err == nil {
		var a trace.Analysis
		if a, err = trace.Analyze(s); err == nil {
			a.Write(stdout)
			return exitOK
		}
	}
	return broken(stderr, "llmsla trace analyze", err)
}

func traceSynth(args []string, stdout, stderr io.Writer) int {
	fs := traceSet("synth", stderr)
	spec := traceFlags(fs)
	var o trace.Rescale
	fs.Float64Var(&o.Speedup, "speedup", 1, "divide the timestamps by this `factor`")
	fs.Float64Var(&o.InputScale, "input-scale", 1, "multiply the input lengths by this `factor`")
	fs.Float64Var(&o.OutputScale, "output-scale", 1, "multiply the output lengths by this `factor`")
	fs.Float64Var(&o.Subsample, "subsample", 1, "keep this `share` of the rows (0 < share ≤ 1), drawn from -seed")
	misnamed(fs, "keep", "-keep is now -subsample, the share of rows kept (bench's -keep is a count of recorded runs)")
	fs.Uint64Var(&o.Seed, "seed", 1, "the `seed` of the rows kept")
	out := fs.String("o", "", "write the trace to `file`")
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() != 1 || *out == "" {
		fmt.Fprint(stderr, usageOf("trace"))
		return exitBroken
	}
	s, err := spec(fs.Arg(0))
	if err == nil {
		err = writeTrace(*out, stdout, func(w io.Writer) (int, error) { return trace.Synth(s, o, w) })
	}
	if err != nil {
		return broken(stderr, "llmsla trace synth", err)
	}
	if n := o.Note(s, *out); n != "" {
		fmt.Fprintln(stdout, n)
	}
	return exitOK
}

func traceFromLog(args []string, stdout, stderr io.Writer) int {
	fs := traceSet("from-log", stderr)
	out := fs.String("o", "", "write the trace to `file`")
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() == 0 || *out == "" {
		fmt.Fprint(stderr, usageOf("trace"))
		return exitBroken
	}
	cfg, err := verdict.SLAFile()
	if err == nil {
		err = writeTrace(*out, stdout, func(w io.Writer) (int, error) {
			rows, failed, err := trace.FromLog(fs.Args(), cfg.Logs.Fields(), w)
			if failed > 0 {
				fmt.Fprintf(stdout, "left out %s (their output length is not known)\n", report.Plural(failed, "failed request", "failed requests"))
			}
			return rows, err
		})
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla trace from-log: %v\n", err)
		return exitBroken
	}
	return exitOK
}

// writeTrace writes a trace to path whole (trace.WriteFile), and says how
// many rows it holds.
func writeTrace(path string, stdout io.Writer, write func(io.Writer) (int, error)) error {
	n, err := trace.WriteFile(path, write)
	if err == nil {
		fmt.Fprintf(stdout, "wrote %s to %s\n", report.Plural(n, "row", "rows"), path)
	}
	return err
}
