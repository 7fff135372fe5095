package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness"
	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
)

// runBench runs the suites' benchmarks -count times, records the output in
// benchfmt (results/<UTC timestamp>.txt, results/latest.txt) and every
// request as JSONL beside it, then prints the SLA verdicts computed from
// those samples.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// 10 runs, as in the Makefile: the gate corrects for every (benchmark,
	// unit) it compares, and the suites give it about 80. With 6 runs a
	// side Mann-Whitney's smallest p (0.0022) clears Holm's first step only
	// for up to 23 comparisons, so the gate would refuse; with 10 (p ≈ 1e-5)
	// it can flag a change among thousands.
	count := fs.Int("count", 10, "runs of each benchmark (the gate needs ≥ 10 for the suites' number of comparisons)")
	n := fs.Int("n", 20, "requests per benchmark run (go test -benchtime Nx)")
	bench := fs.String("bench", ".", "benchmarks to run (go test -bench)")
	out := fs.String("out", "results", "directory of recorded runs")
	pkg := fs.String("pkg", "./suites/...", "package of the scenarios")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *count < 1 || *n < 1 || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "llmsla bench: -count %d, -n %d, extra arguments %q: want -count ≥ 1 (≥ 10 for the gate), -n ≥ 1 and no arguments\n", *count, *n, fs.Args())
		return 2
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	// Everything printed or recorded from here on passes a redactor: the
	// samples come redacted from the client, and this is the second line
	// for the rest of go test's output and the results file.
	sec := secret.New(cfg.Secrets()...)
	so, se := secret.NewWriter(stdout, sec), secret.NewWriter(stderr, sec)
	defer so.Close()
	defer se.Close()
	stdout, stderr = so, se
	fmt.Fprintln(stdout, cfg.Describe())
	// The test binary runs in the package's directory: give it absolute paths.
	if abs, err := filepath.Abs(*out); err == nil {
		*out = abs
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	txt := filepath.Join(*out, stamp+".txt")
	samples := filepath.Join(*out, stamp+".samples.jsonl")

	header := fmt.Sprintf("commit: %s\ndate: %s\nconfig: %s\ncount: %d\n", gitCommit(), stamp, cfg.Source, *count)
	goArgs := []string{"test", "-run", "^$", "-bench", *bench, "-count", strconv.Itoa(*count),
		"-benchtime", fmt.Sprintf("%dx", *n), "-timeout", "0", *pkg}
	fmt.Fprintf(stdout, "go %s\n", strings.Join(goArgs, " "))
	testErr := record(txt, header, samples, goArgs, sec, stdout, stderr)
	fmt.Fprintf(stdout, "\nrecorded %s and %s\n\n", txt, samples)
	code := verdicts(cfg, []string{samples}, stdout, stderr)
	if testErr != nil {
		// latest.txt is what `make gate` and `make baseline` read: a run
		// missing benchmarks must not become it, or the gate would pass
		// with a warning about what it did not compare.
		fmt.Fprintf(stderr, "llmsla: go test: %v; %s holds the benchmarks that finished, %s is unchanged\n",
			testErr, txt, filepath.Join(*out, "latest.txt"))
		return 2
	}
	for _, pair := range [][2]string{{txt, "latest.txt"}, {samples, "latest.samples.jsonl"}} {
		if err := copyAtomic(pair[0], filepath.Join(*out, pair[1])); err != nil {
			fmt.Fprintf(stderr, "llmsla: %v\n", err)
			return 2
		}
	}
	return code
}

// record runs go test, writing each complete output line to path as it
// arrives (and to stdout), redacted of sec, so that an interrupted run
// leaves a file of what finished. Interrupts go to the child; we stay to
// close the file.
func record(path, header, samples string, goArgs []string, sec *secret.Set, stdout, stderr io.Writer) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.WriteString(f, header); err != nil {
		return err
	}
	cmd := exec.Command("go", goArgs...)
	cmd.Env = append(os.Environ(), harness.EnvSamples+"="+samples)
	cmd.Stderr = stderr
	ownGroup(cmd)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer func() {
		signal.Stop(sig) // after Stop, nothing more is sent on sig
		close(sig)
	}()
	if err := cmd.Start(); err != nil {
		return err
	}
	release := watchdog(cmd, stderr)
	var interrupted atomic.Bool
	go func() {
		for s := range sig {
			interrupted.Store(true)
			_ = signalGroup(cmd, s)
		}
	}()
	var werr error
	r := bufio.NewReaderSize(pipe, 64<<10)
	for {
		line, err := r.ReadString('\n')
		line = sec.Redact(line)
		io.WriteString(stdout, line)
		if complete(line) && werr == nil {
			_, werr = io.WriteString(f, line)
		}
		if err != nil {
			break
		}
	}
	err = cmd.Wait()
	// Only once go test is gone: a panic before here must leave the
	// watchdog to kill it.
	release()
	if err != nil {
		if interrupted.Load() {
			return fmt.Errorf("interrupted (%w)", err)
		}
		return err
	}
	return werr
}

// complete reports whether line may go into the results file: it ends in a
// newline and, if it is a benchmark line, parses as one. go test prints a
// benchmark's name before running it and its figures after, so an
// interrupted run ends in a bare name, or a name followed by whatever the
// dying binary printed; benchfmt readers would reject the file for it.
func complete(line string) bool {
	if !strings.HasSuffix(line, "\n") {
		return false
	}
	if !strings.HasPrefix(line, "Benchmark") {
		return true
	}
	r := benchfmt.NewReader(strings.NewReader(line), "")
	for r.Scan() {
		if _, bad := r.Result().(*benchfmt.SyntaxError); bad {
			return false
		}
	}
	return true
}

// verdicts prints the SLA table of samples files (shards of one run merge:
// their samples are pooled, each run keeping its own time window): 0 all
// met, 1 not, 2 unreadable.
func verdicts(cfg *config.Config, paths []string, stdout, stderr io.Writer) int {
	var samples []sample.Sample
	for _, path := range paths {
		s, err := sample.Read(path)
		if err != nil {
			fmt.Fprintf(stderr, "llmsla: %v\n", err)
			return 2
		}
		if len(s) == 0 {
			fmt.Fprintf(stderr, "llmsla: %s: no samples recorded\n", path)
			return 2
		}
		samples = append(samples, s...)
	}
	vs := objective.Evaluate(samples, cfg.Objectives)
	report.Verdicts(stdout, vs)
	for _, v := range vs {
		for _, w := range v.Stats.Warnings {
			fmt.Fprintf(stdout, "warning (%s endpoint=%s): %s\n", v.Scenario, v.Endpoint, w)
		}
	}
	for _, v := range vs {
		if !v.OK() {
			fmt.Fprintln(stdout, "\nSLA violated.")
			return 1
		}
	}
	fmt.Fprintln(stdout, "\nAll SLAs met.")
	return 0
}

func runVerdict(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: llmsla verdict SAMPLES.jsonl [MORE.jsonl …]   (e.g. results/latest.samples.jsonl; shards merge)")
		return 2
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	sec := secret.New(cfg.Secrets()...)
	so, se := secret.NewWriter(stdout, sec), secret.NewWriter(stderr, sec)
	defer so.Close()
	defer se.Close()
	return verdicts(cfg, args, so, se)
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "-dirty"
	}
	return c
}

// copyAtomic copies src to dst through a temporary file and a rename, so a
// reader never sees half a file.
func copyAtomic(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return atomicfile.Write(dst, b)
}
