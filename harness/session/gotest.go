package session

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/secret"
)

// GoTest is a go test run of the suites' benchmarks: -bench Bench in
// Pkg, -count Count runs of -benchtime Nx requests each. The child it
// starts is told what to do through Child.
type GoTest struct {
	Pkg, Bench string
	// Count is 10 by default, as in the Makefile: the gate corrects for
	// every (benchmark, unit) it compares, and the suites give it about
	// 80. With 6 runs a side Mann-Whitney's smallest p (0.0022) clears
	// Holm's first step only for up to 23 comparisons, so the gate would
	// refuse; with 10 (p ≈ 1e-5) it can flag a change among thousands.
	Count, N int
}

// Check refuses runs that would measure nothing: -count below 1, or -n
// below 2 (go test's first call of a benchmark, b.N = 1, is its probe,
// which the harness counts as warm-up).
func (g GoTest) Check() error {
	if g.Count < 1 || g.N < 2 {
		return fmt.Errorf("-count %d, -n %d: want -count ≥ 1 (≥ 10 for the gate) and -n ≥ 2 (-n 1 is go test's probe alone, which measures nothing)", g.Count, g.N)
	}
	return nil
}

// args are the test binary's flags for the run: -count runs of -n
// requests of the benchmarks -bench matches, and no tests.
func (g GoTest) args() []string {
	return []string{"-test.run", "^$", "-test.bench", g.Bench, "-test.count", strconv.Itoa(g.Count),
		"-test.benchtime", fmt.Sprintf("%dx", g.N), "-test.timeout", "0"}
}

// plan runs the benchmarks once in plan mode (session.Child.Plan): the
// test binary writes the scenarios its suites define and the benchmarks
// -bench matches, and sends nothing. It is how the command checks the
// whole configuration and shows the whole run before the first request.
// go test's own output is returned with a failure (a suite that does not
// compile).
func (g GoTest) Suites() (Suites, error) {
	dir, err := os.MkdirTemp("", "llmsla-plan-")
	if err != nil {
		return Suites{}, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "plan.jsonl")
	bin, err := build(g.Pkg)
	if err != nil {
		return Suites{}, fmt.Errorf("go test (listing the suites' scenarios): %w", err)
	}
	defer bin.Remove()
	cmd := exec.Command(bin.Path, "-test.run", "^$", "-test.bench", g.Bench, "-test.count", "1", "-test.benchtime", "1x")
	cmd.Dir = bin.Dir
	cmd.Env = append(os.Environ(), Child{Plan: path}.Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Suites{}, fmt.Errorf("go test (listing the suites' scenarios): %w\n%s", err, strings.TrimSpace(string(out)))
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return Suites{Benchmarks: map[string]string{}}, nil // no benchmark matched
	}
	return ReadPlan(path)
}

// Record runs go test with child in its environment, writing header and
// then each complete output line to path as it arrives, redacted of sec,
// so that an interrupted run leaves a file of what finished. What people
// read goes to stdout: every line when verbose, else all but the
// benchmark record (benchmark lines, units, configuration lines), which
// is the file's. When ctx is done (the command was interrupted) the child
// is interrupted, and Record stays to close the file.
//
// With no header, the output is appended to path, which must exist:
// more runs of a recording (a bench's next look against a base).
func (g GoTest) Record(ctx context.Context, path string, header []byte, child Child, sec *secret.Set, verbose bool, stdout, stderr io.Writer) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if header != nil {
		f, err = os.Create(path)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(header); err != nil {
		return err
	}
	bin, err := build(g.Pkg)
	if err != nil {
		return err
	}
	defer bin.Remove()
	cmd := exec.Command(bin.Path, g.args()...)
	cmd.Dir = bin.Dir
	cmd.Env = append(os.Environ(), child.Env()...)
	cmd.Stderr = stderr
	ownGroup(cmd)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	release := watchdog(cmd, stderr)
	var interrupted atomic.Bool
	waited := make(chan struct{})
	defer close(waited)
	go func() {
		select {
		case <-ctx.Done():
			interrupted.Store(true)
			_ = signalGroup(cmd, os.Interrupt)
		case <-waited:
		}
	}()
	werr := copyLines(pipe, f, sec, func(line string) {
		if verbose || !recordLine(line) {
			io.WriteString(stdout, line)
		}
	})
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

// copyLines copies r's lines, redacted of sec, to show and — the complete
// ones — to f, and returns the first error writing f.
func copyLines(r io.Reader, f io.Writer, sec *secret.Set, show func(string)) error {
	var werr error
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		line = sec.Redact(line)
		show(line)
		if complete(line) && werr == nil {
			_, werr = io.WriteString(f, line)
		}
		if err != nil {
			return werr
		}
	}
}

// recordLine reports whether a line of go test's output is part of the
// benchmark record, which goes to the results file and not to people: a
// benchmark result, a unit's metadata, a configuration line (goos: linux,
// endpoint.prod.model: …), go test's PASS and ok lines.
func recordLine(line string) bool {
	switch {
	case strings.HasPrefix(line, "Benchmark"), strings.HasPrefix(line, "Unit "),
		line == "PASS\n", strings.HasPrefix(line, "ok  \t"):
		return true
	}
	k, _, ok := strings.Cut(line, ": ")
	return ok && k != "" && !strings.ContainsAny(k, " \t") && k[0] >= 'a' && k[0] <= 'z'
}

// complete reports whether line may go into the results file: it ends in a
// newline and, if it is a benchmark line, parses as one and is a run that
// sent requests. go test prints a benchmark's name before running it and
// its figures after, so an interrupted run ends in a bare name, or a name
// followed by whatever the dying binary printed; benchfmt readers would
// reject the file for it. A repetition left once a level was decided
// prints a result that is no run (recording.Unsent), which readers drop:
// it is not recorded either.
func complete(line string) bool {
	if !strings.HasSuffix(line, "\n") {
		return false
	}
	if !strings.HasPrefix(line, "Benchmark") {
		return true
	}
	r := benchfmt.NewReader(strings.NewReader(line), "")
	for r.Scan() {
		switch res := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return false
		case *benchfmt.Result:
			if unsent, _ := recording.Unsent(res); unsent {
				return false
			}
		}
	}
	return true
}
