package recording

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/llmsla/llmsla/harness/sample"
)

// ReadSamples returns the source's samples — those it was given, or those
// of its samples file — checked as CheckSamples does: nil when it has
// none (no samples file). The read fails closed: a cut last line
// (sample.ErrCut), which a verdict may take as the end of an interrupted
// run, is a corrupt file here, as is a file without samples.
func (s Source) ReadSamples() ([]sample.Sample, error) {
	if s.Samples != nil {
		return s.Samples, CheckSamples(s.SamplesName(), s.Samples)
	}
	if s.SamplesPath == "" {
		return nil, nil
	}
	path := s.SamplesPath
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
	if i, why := badSample(ss); i >= 0 {
		return nil, fmt.Errorf("%w: %s:%d: %s", ErrUnusable, path, lineOf(path, i), why)
	}
	return ss, nil
}

// CheckSamples returns an error wrapping ErrUnusable, naming the request,
// when a sample of ss cannot be a measurement: a negative time or token
// count, or a request recorded twice (the same run and sequence number),
// which is what a samples file concatenated with itself holds. name
// labels ss in the message.
func CheckSamples(name string, ss []sample.Sample) error {
	if i, why := badSample(ss); i >= 0 {
		return fmt.Errorf("%w: %s: %s", ErrUnusable, name, why)
	}
	return nil
}

// badSample returns the index of the first sample of ss that cannot be a
// measurement and why, or -1.
func badSample(ss []sample.Sample) (int, string) {
	type id struct {
		run string
		seq int
	}
	seen := map[id]bool{}
	for i := range ss {
		s := &ss[i]
		if s.TTFT < 0 || s.TTFA < 0 || s.Total < 0 || s.OutputTokens < 0 {
			return i, fmt.Sprintf("request %d of run %s has a negative time or token count (ttft %v, total %v, %d tokens); a broken measurement cannot be compared",
				s.Seq, s.Run, s.TTFT, s.Total, s.OutputTokens)
		}
		if s.Run == "" {
			continue
		}
		k := id{s.Run, s.Seq}
		if seen[k] {
			return i, fmt.Sprintf("request %d of run %s is recorded twice: the file holds the same runs twice (concatenated with itself?), which would double n; keep one copy",
				s.Seq, s.Run)
		}
		seen[k] = true
	}
	return -1, ""
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
