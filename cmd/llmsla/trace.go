package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/trace"
)

const traceUsage = `usage: llmsla trace analyze [flags] FILE
       llmsla trace synth [flags] -o OUT FILE
       llmsla trace from-log -o OUT LOG…

analyze describes a trace: rows, duration, rate over time, input and
output length distributions, burstiness (the gamma shape that fits its
gaps) and the share of prompt tokens in shared prefixes (hash ids).
synth writes a rescaled copy in Mooncake's format: faster (-speedup),
longer or shorter prompts and answers (-input-scale, -output-scale), a
seeded share of its rows (-keep, -seed), so that a week of production
becomes a short CI replay. from-log turns request logs (the fields of the
SLA file's logs: block, by default the structlog names) into a trace.
Exit 0 done, 2 when the input cannot be read (the message names its line).
`

// runTrace runs a trace subcommand.
func runTrace(args []string, stdout, stderr io.Writer) int {
	sub := map[string]func([]string, io.Writer, io.Writer) int{"analyze": traceAnalyze, "synth": traceSynth, "from-log": traceFromLog}
	if len(args) == 0 || sub[args[0]] == nil {
		fmt.Fprint(stderr, traceUsage)
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
	return func(file string) (trace.Spec, error) {
		spec := trace.Spec{File: file, Format: trace.Format(*format), Start: *start, End: *end}
		for _, kv := range strings.FieldsFunc(*cols, func(r rune) bool { return r == ',' }) {
			k, v, _ := strings.Cut(kv, "=")
			into := map[string]*string{"timestamp": &spec.Columns.Timestamp, "unit": (*string)(&spec.Columns.Unit), "input": &spec.Columns.Input,
				"output": &spec.Columns.Output, "messages": &spec.Columns.Messages, "hash_ids": &spec.Columns.Hashes}[k]
			if into == nil || v == "" {
				return spec, fmt.Errorf("-columns: %q: want key=name, keys timestamp, unit, input, output, messages, hash_ids", kv)
			}
			*into = v
		}
		return spec, spec.Validate()
	}
}

func traceAnalyze(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trace analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	spec := traceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, traceUsage)
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
	fmt.Fprintf(stderr, "llmsla trace analyze: %v\n", err)
	return exitBroken
}

func traceSynth(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trace synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	spec := traceFlags(fs)
	var o trace.Rescale
	fs.Float64Var(&o.Speedup, "speedup", 1, "divide the timestamps by this `factor`")
	fs.Float64Var(&o.InputScale, "input-scale", 1, "multiply the input lengths by this `factor`")
	fs.Float64Var(&o.OutputScale, "output-scale", 1, "multiply the output lengths by this `factor`")
	fs.Float64Var(&o.Keep, "keep", 1, "keep this `share` of the rows, drawn from -seed")
	fs.Uint64Var(&o.Seed, "seed", 1, "the `seed` of the rows kept")
	out := fs.String("o", "", "write the trace to `file`")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() != 1 || *out == "" {
		fmt.Fprint(stderr, traceUsage)
		return exitBroken
	}
	s, err := spec(fs.Arg(0))
	if err == nil {
		err = writeTrace(*out, stdout, func(w io.Writer) (int, error) { return trace.Synth(s, o, w) })
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla trace synth: %v\n", err)
		return exitBroken
	}
	return exitOK
}

func traceFromLog(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trace from-log", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the trace to `file`")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() == 0 || *out == "" {
		fmt.Fprint(stderr, traceUsage)
		return exitBroken
	}
	cfg, err := gateObjectives()
	if err == nil {
		err = writeTrace(*out, stdout, func(w io.Writer) (int, error) {
			rows, failed, err := trace.FromLog(fs.Args(), cfg.Logs.Fields(), w)
			if failed > 0 {
				fmt.Fprintf(stdout, "left out %d failed requests (their output length is not known)\n", failed)
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

// writeTrace streams a trace to path through a temporary file beside it,
// renamed over path once whole (a trace can be larger than memory), and
// says how many rows it holds.
func writeTrace(path string, stdout io.Writer, write func(io.Writer) (int, error)) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone once renamed
	n, err := write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d rows to %s\n", n, path)
	return nil
}

// logWindow is the window a log is judged in: -window, else the SLA
// file's logs.window, else an hour.
func logWindow(cfg *config.Config, flagged time.Duration) time.Duration {
	switch {
	case flagged > 0:
		return flagged
	case cfg.Logs.Window > 0:
		return cfg.Logs.Window
	}
	return time.Hour
}

// logVerdicts judges request logs window by window with the SLA file's
// objectives, in the verdict table, exit code and reports a bench's
// samples get.
func logVerdicts(cfg *config.Config, paths []string, window time.Duration, stdout, stderr io.Writer, opts verdictOptions) int {
	samples, err := trace.LogSamples(paths, cfg.Logs.Fields(), logWindow(cfg, window))
	if err == nil {
		err = cfg.CheckScenarios(recorded(samples))
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return exitBroken
	}
	return judgeVerdicts(cfg, paths, samples, serverRecord{}, nil, stdout, stderr, opts)
}

// gateLog gates two sides of which one at least is a window of request
// logs (its start, as the verdict table names it: 2026-11-30T10:00Z); the
// other may be a recorded bench (a results file, samples file or
// directory), matched by scenario and by the model its endpoint served.
func gateLog(cfg *config.Config, logs []string, window time.Duration, base, new string, opts gate.Options) (*gate.Report, error) {
	samples, err := trace.LogSamples(logs, cfg.Logs.Fields(), logWindow(cfg, window))
	if err != nil {
		return nil, err
	}
	var sides [2][]sample.Sample
	for i, arg := range []string{base, new} {
		if sides[i], err = gateSide(samples, arg); err != nil {
			return nil, err
		}
	}
	return gate.GateRequests(base, new, sides[0], sides[1], opts)
}

// gateSide is one side of a log gate, its level cleared so that the two
// sides meet: a window of the log, or a recorded bench of one level.
func gateSide(logged []sample.Sample, arg string) ([]sample.Sample, error) {
	if start, err := trace.ParseWindow(arg); err == nil {
		want := trace.WindowLevel(start)
		var out []sample.Sample
		levels := map[sample.Level]bool{}
		for _, s := range logged {
			levels[s.Level] = true
			if s.Level == want {
				s.Level = ""
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%w: the log has no request in window %s (windows: %s)", recording.ErrUnusable, arg, windowList(levels))
		}
		return out, nil
	}
	p := arg
	if _, err := os.Stat(p); err == nil && !isDir(p) && strings.HasSuffix(p, ".txt") {
		p = recording.SamplesBeside(p)
	}
	ss, _, err := sample.ReadAll([]string{p}, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is neither a window of the log (e.g. 2026-11-30T10:00Z) nor a recorded run: %v", recording.ErrUnusable, arg, err)
	}
	levels := map[string][]sample.Level{}
	out := ss[:0]
	for _, s := range ss {
		if !s.Measured() {
			continue
		}
		key := s.Scenario + " endpoint=" + s.Endpoint
		if !slices.Contains(levels[key], s.Level) {
			levels[key] = append(levels[key], s.Level)
		}
		if len(levels[key]) > 1 {
			return nil, fmt.Errorf("%w: %s holds %s at levels %s and %s: a log's window is one traffic, compare it with a run of one level", recording.ErrUnusable, arg, key, levels[key][0], levels[key][1])
		}
		if s.Model != "" {
			s.Endpoint = s.Model // the log names the model, not the bench's endpoint
		}
		s.Level = ""
		out = append(out, s)
	}
	return out, nil
}

// windowList names the windows of a log, the first few of many.
func windowList(levels map[sample.Level]bool) string {
	var names []string
	for l := range levels {
		v, _ := l.Get("window")
		names = append(names, v)
	}
	slices.Sort(names)
	if len(names) > 6 {
		names = append(names[:3], "…", names[len(names)-1])
	}
	return strings.Join(names, ", ")
}
