package recording

import (
	"errors"
	"io"
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
)

// ErrUnusable marks input from which no comparison can be made: a missing
// or corrupt file, no benchmarks in common, or too few runs. The gate's
// and compare's errors wrap it too, so that callers can tell "cannot
// judge" (exit 2) from "judged and failed".
var ErrUnusable = errors.New("unusable benchmark input")

// Source is one recorded run: benchfmt from a file on disk or a stream
// already open, and optionally its per-request samples.
type Source struct {
	// Name labels the source in messages and is its .file key.
	Name string
	// Path is read when R is nil.
	Path string
	// R, when set, is read instead of Path.
	R io.Reader
	// SamplesPath is the samples file recorded with the run (File sets
	// it beside Path); when it does not exist the source has no samples.
	SamplesPath string
	// Samples, when not nil, are the run's samples, already read.
	Samples []sample.Sample
}

// File returns a Source reading path and the samples file beside it
// (SamplesBeside).
func File(path string) Source {
	return Source{Name: path, Path: path, SamplesPath: SamplesBeside(path)}
}

// Stream returns a Source reading r, labelled name, without samples.
func Stream(name string, r io.Reader) Source { return Source{Name: name, R: r} }

// WithSamples returns s with its per-request samples.
func (s Source) WithSamples(ss []sample.Sample) Source {
	s.Samples = ss
	return s
}

// SamplesBeside is the samples file llmsla bench records beside a benchfmt
// file: results/X.txt ↔ results/X.samples.jsonl.
func SamplesBeside(path string) string {
	return strings.TrimSuffix(path, ".txt") + ".samples.jsonl"
}

// TxtBeside is the benchfmt file beside a samples file: SamplesBeside
// read the other way.
func TxtBeside(samples string) string {
	return strings.TrimSuffix(samples, ".samples.jsonl") + ".txt"
}

// SamplesName labels the source's samples in messages: the samples file
// (also once its samples were read into Samples), or the source's name
// when they were given.
func (s Source) SamplesName() string {
	if s.SamplesPath == "" {
		return s.Name + " (samples)"
	}
	return s.SamplesPath
}
