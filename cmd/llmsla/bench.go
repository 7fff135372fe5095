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
	"syscall"
	"time"

	"github.com/llmsla/llmsla/harness"
)

// runBench runs the suites' benchmarks -count times, records the output in
// benchfmt (results/<UTC timestamp>.txt, results/latest.txt) and every
// request as JSONL beside it, then prints the SLA verdicts computed from
// those samples.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	count := fs.Int("count", 6, "runs of each benchmark (≥ 6 for the gate's statistics)")
	n := fs.Int("n", 20, "requests per benchmark run (go test -benchtime Nx)")
	bench := fs.String("bench", ".", "benchmarks to run (go test -bench)")
	out := fs.String("out", "results", "directory of recorded runs")
	pkg := fs.String("pkg", "./suites/...", "package of the scenarios")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := harness.LoadConfig()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
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
	testErr := record(txt, header, samples, goArgs, stdout, stderr)
	for _, pair := range [][2]string{{txt, "latest.txt"}, {samples, "latest.samples.jsonl"}} {
		if err := copyAtomic(pair[0], filepath.Join(*out, pair[1])); err != nil {
			fmt.Fprintf(stderr, "llmsla: %v\n", err)
		}
	}
	fmt.Fprintf(stdout, "\nrecorded %s and %s\n\n", txt, samples)
	code := verdicts(cfg, samples, stdout, stderr)
	if testErr != nil {
		fmt.Fprintf(stderr, "llmsla: go test: %v (the results above cover what finished)\n", testErr)
		return 2
	}
	return code
}

// record runs go test, writing each complete output line to path as it
// arrives (and to stdout), so that an interrupted run leaves a file of
// what finished. Interrupts go to the child; we stay to close the file.
func record(path, header, samples string, goArgs []string, stdout, stderr io.Writer) error {
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
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		for s := range sig {
			_ = cmd.Process.Signal(s)
		}
	}()
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text() + "\n"
		io.WriteString(stdout, line)
		if _, err := io.WriteString(f, line); err != nil {
			return err
		}
	}
	return cmd.Wait()
}

// verdicts prints the SLA table of a samples file: 0 all met, 1 not.
func verdicts(cfg *harness.Config, path string, stdout, stderr io.Writer) int {
	samples, err := harness.ReadSamples(path)
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	if len(samples) == 0 {
		fmt.Fprintf(stderr, "llmsla: %s: no samples recorded\n", path)
		return 2
	}
	vs := harness.Verdicts(cfg, samples)
	harness.WriteVerdicts(stdout, vs)
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
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: llmsla verdict results/latest.samples.jsonl")
		return 2
	}
	cfg, err := harness.LoadConfig()
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: %v\n", err)
		return 2
	}
	return verdicts(cfg, args[0], stdout, stderr)
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
	return harness.WriteFileAtomic(dst, b)
}
