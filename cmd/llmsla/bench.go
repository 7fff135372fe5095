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
	latest := fs.Bool("latest", true, "make this run results/latest.* (what make gate and make baseline read)")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	shard := fs.String("shard", "", "`I/N`: send this machine's share of a run sent by N (also $LLMSLA_SHARD, or $JOB_COMPLETION_INDEX with $LLMSLA_SHARDS)")
	startAt := fs.String("start-at", "", "wall-clock `time` (RFC 3339) at which the shards start measuring together (also $LLMSLA_START_AT)")
	levelEvery := fs.String("level-every", "", "`duration` of each measured run's slot after -start-at: the k-th run starts at start + (k+1)·duration on every shard, so that shards stay together through levels and -count repetitions (also $LLMSLA_LEVEL_EVERY)")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	// The test binary reads these from its environment, with the rest of
	// the configuration.
	for env, v := range map[string]string{config.EnvShard: *shard, config.EnvStartAt: *startAt, config.EnvLevelEvery: *levelEvery} {
		if v != "" {
			os.Setenv(env, v)
		}
	}
	if *count < 1 || *n < 2 || fs.NArg() > 0 {
		// -n 1 would measure nothing: go test's first call of a benchmark,
		// b.N = 1, is its probe, which the harness counts as warm-up.
		fmt.Fprintf(stderr, "llmsla bench: -count %d, -n %d, extra arguments %q: want -count ≥ 1 (≥ 10 for the gate), -n ≥ 2 (-n 1 is go test's probe alone, which measures nothing) and no arguments\n", *count, *n, fs.Args())
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
	terminal := isTerminal(stderr) // before the redactor wraps it
	rawStderr := stderr            // for the progress line, redacted line by line
	stdout, stderr, sec, flush := redacting(cfg, stdout, stderr)
	defer flush()
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
	if cfg.Shard.On() {
		// Shards may write to one volume: their files must not collide.
		stamp += fmt.Sprintf(".shard%dof%d", cfg.Shard.I, cfg.Shard.N)
	}
	txt := filepath.Join(*out, stamp+".txt")
	samples := filepath.Join(*out, stamp+".samples.jsonl")

	header := fmt.Sprintf("commit: %s\ndate: %s\nconfig: %s\ncount: %d\n", gitCommit(), stamp, cfg.Source, *count)
	if cfg.Shard.On() {
		header += fmt.Sprintf("shard: %s\n", cfg.Shard)
	}
	goArgs := []string{"test", "-run", "^$", "-bench", *bench, "-count", strconv.Itoa(*count),
		"-benchtime", fmt.Sprintf("%dx", *n), "-timeout", "0", *pkg}
	fmt.Fprintf(stdout, "go %s\n", strings.Join(goArgs, " "))
	testOut, testErrOut, stopProgress := stdout, stderr, func() {}
	if !*quiet {
		// Progress comes through a file of its own: go test's output is
		// the benchfmt record, and stderr is ours.
		path := filepath.Join(os.TempDir(), fmt.Sprintf("llmsla-progress-%s-%d.jsonl", stamp, os.Getpid()))
		os.Setenv(harness.EnvProgress, path)
		defer os.Unsetenv(harness.EnvProgress)
		show := startProgress(path, rawStderr, sec, terminal)
		testOut, testErrOut, stopProgress = show.over(stdout), show.over(stderr), show.close
	}
	testErr := record(txt, header, samples, goArgs, sec, testOut, testErrOut)
	stopProgress()
	latestTxt := filepath.Join(*out, "latest.txt")
	code := 2
	_, noSamples := os.Stat(samples)
	if noSamples != nil {
		// go test may pass without sending anything: -bench matching no
		// benchmark, or no endpoint selected.
		fmt.Fprintf(stdout, "\nrecorded %s; no samples were recorded\n", txt)
	} else {
		fmt.Fprintf(stdout, "\nrecorded %s and %s\n\n", txt, samples)
		code = judgeRun(cfg, samples, stdout, stderr, verdictOptions{shard: cfg.Shard.On(), partial: testErr != nil})
	}
	// latest.* are what `make gate` and `make baseline` read: a run missing
	// benchmarks, or one that cannot be judged, must not become them, or
	// the gate would pass with a warning about what it did not compare.
	switch {
	case testErr != nil:
		fmt.Fprintf(stderr, "llmsla: go test: %v; %s holds the benchmarks that finished, %s and its samples are unchanged\n",
			testErr, txt, latestTxt)
		return 2
	case noSamples != nil:
		fmt.Fprintf(stderr, "llmsla: go test passed but recorded no samples (does -bench %q match a benchmark of %s with an endpoint selected?); %s and its samples are unchanged\n",
			*bench, *pkg, latestTxt)
		return 2
	case code == 2:
		fmt.Fprintf(stderr, "llmsla: the run cannot be judged (above); %s and its samples are unchanged\n", latestTxt)
		return 2
	case !*latest:
		return code
	}
	if err := promote(*out, txt, samples); err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	return code
}

// promote makes the run results/latest.*: both files are written to
// temporary files first, then renamed, the samples before the results
// (the gate and baseline find the samples beside latest.txt), so that a
// failure to write leaves the previous pair whole.
func promote(dir, txt, samples string) error {
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // a no-op once renamed
		}
	}()
	pairs := [][2]string{{samples, "latest.samples.jsonl"}, {txt, "latest.txt"}}
	for _, pair := range pairs {
		t, err := stage(pair[0], dir)
		if err != nil {
			return err
		}
		tmps = append(tmps, t)
	}
	for i, pair := range pairs {
		if err := os.Rename(tmps[i], filepath.Join(dir, pair[1])); err != nil {
			if i > 0 {
				return fmt.Errorf("%w: latest.samples.jsonl is this run's, latest.txt the previous run's; do not gate on them, run again", err)
			}
			return err
		}
	}
	return nil
}

// stage copies src to a synced temporary file in dir, for a rename.
func stage(src, dir string) (string, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	return atomicfile.Stage(dir, filepath.Base(src), b)
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
