package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
)

// SamplesBeside is the samples file llmsla bench records beside a benchfmt
// file: results/X.txt ↔ results/X.samples.jsonl.
func SamplesBeside(path string) string {
	return strings.TrimSuffix(path, ".txt") + ".samples.jsonl"
}

// reqKey is one scenario × endpoint × load level of a side's requests,
// what one benchmark measured.
type reqKey struct {
	scenario, endpoint string
	level              sample.Level
}

// cell holds a cell's measured requests by run, runs in first-seen order.
type cell struct {
	runs  []string
	byRun map[string][]*sample.Sample
}

// requests is one side's measured requests (cold and warm-up ones are not
// measurements), by cell.
type requests struct {
	name  string
	cells map[reqKey]*cell
	order []reqKey
}

// readRequests reads a samples file for a gate, which fails closed: a cut
// last line (sample.ErrCut), which a verdict may take as the end of an
// interrupted run, is a corrupt file here, as are negative durations and a
// request recorded twice. A file that does not exist is (nil, nil): the
// caller falls back to run-level figures and says so.
func readRequests(path string) (*requests, error) {
	ss, err := sample.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, sample.ErrCut):
		return nil, fmt.Errorf("%w: %v: re-record it; the gate does not judge part of a run", ErrUnusable, err)
	case err != nil:
		return nil, fmt.Errorf("%w: cannot read samples: %v", ErrUnusable, err)
	case len(ss) == 0:
		return nil, fmt.Errorf("%w: %s holds no samples", ErrUnusable, path)
	}
	rq, bad := groupRequests(path, ss)
	if bad >= 0 {
		return nil, fmt.Errorf("%w: %s:%d: %s", ErrUnusable, path, lineOf(path, bad), rq.problem(ss[bad]))
	}
	return rq, nil
}

// groupRequests groups the measured samples of ss by cell and run. bad is
// the index of the first sample that cannot be a measurement (negative
// times, or the same run and sequence number twice), or -1.
func groupRequests(name string, ss []sample.Sample) (rq *requests, bad int) {
	rq = &requests{name: name, cells: map[reqKey]*cell{}}
	type id struct {
		run string
		seq int
	}
	seen := map[id]bool{}
	for i := range ss {
		s := &ss[i]
		if s.TTFT < 0 || s.TTFA < 0 || s.Total < 0 || s.OutputTokens < 0 {
			return rq, i
		}
		if s.Run != "" {
			k := id{s.Run, s.Seq}
			if seen[k] {
				return rq, i
			}
			seen[k] = true
		}
		if !s.Measured() {
			continue
		}
		k := reqKey{s.Scenario, s.Endpoint, s.Level}
		c := rq.cells[k]
		if c == nil {
			c = &cell{byRun: map[string][]*sample.Sample{}}
			rq.cells[k] = c
			rq.order = append(rq.order, k)
		}
		if _, ok := c.byRun[s.Run]; !ok {
			c.runs = append(c.runs, s.Run)
		}
		c.byRun[s.Run] = append(c.byRun[s.Run], s)
	}
	return rq, -1
}

// problem says what is wrong with a sample groupRequests stopped at.
func (rq *requests) problem(s sample.Sample) string {
	if s.TTFT < 0 || s.TTFA < 0 || s.Total < 0 || s.OutputTokens < 0 {
		return fmt.Sprintf("request %d of run %s has a negative time or token count (ttft %v, total %v, %d tokens); a broken measurement cannot be compared",
			s.Seq, s.Run, s.TTFT, s.Total, s.OutputTokens)
	}
	return fmt.Sprintf("request %d of run %s is recorded twice: the file holds the same runs twice (concatenated with itself?), which would double n; keep one copy",
		s.Seq, s.Run)
}

// lineOf is the line of the i-th sample of the file at path: sample.Read
// skips blank lines. It reads the file again, on the way to an error only.
func lineOf(path string, i int) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for n, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if i == 0 {
			return n + 1
		}
		i--
	}
	return 0
}

// benchKey is how a benchmark name and a cell meet: the name as the
// harness builds it (Chat/endpoint=prod/concurrency=5), lower-cased and
// without its -N GOMAXPROCS suffix.
func benchKey(name string) string { return strings.ToLower(name) }

func (k reqKey) benchKey() string {
	s := k.scenario + "/endpoint=" + sample.NameValue(k.endpoint)
	if k.level != "" {
		s += "/" + string(k.level)
	}
	return strings.ToLower(s)
}
