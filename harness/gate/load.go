package gate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"

	"github.com/llmsla/llmsla/harness/sample"
)

// ErrUnusable marks input from which no comparison can be made: a missing
// or corrupt file, no benchmarks in common, or too few runs. Errors wrap it
// so callers can tell "cannot judge" from "judged and failed".
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
	// it beside Path); when it does not exist the figures are judged over
	// runs only, with a warning.
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

// requests reads the source's samples: nil when it has none.
func (s Source) requests() (*requests, error) {
	if s.Samples != nil {
		rq, bad := groupRequests(s.Name+" (samples)", s.Samples)
		if bad >= 0 {
			return nil, fmt.Errorf("%w: %s: %s", ErrUnusable, rq.name, rq.problem(s.Samples[bad]))
		}
		return rq, nil
	}
	if s.SamplesPath == "" {
		return nil, nil
	}
	return readRequests(s.SamplesPath)
}

// maxSyntaxErrors bounds how many corrupt lines are listed; past a handful
// the file is plainly not benchmark output and more lines do not help.
const maxSyntaxErrors = 5

// readAll reads every source in order through one benchfmt.Reader, so unit
// metadata accumulates across files and a conflict between them (better=lower
// in one, higher in the other) surfaces as a syntax error. Each result that
// survives filter is passed to fn with the index of its source; fn must not
// retain the result. The meaningless ns/op is dropped before filtering.
func readAll(srcs []Source, filter *benchproc.Filter, fn func(src int, res *benchfmt.Result)) (benchfmt.UnitMetadataMap, error) {
	var rd benchfmt.Reader
	var syntax []string
	for i, src := range srcs {
		r := src.R
		if r == nil {
			f, err := os.Open(src.Path)
			if err != nil {
				return nil, fmt.Errorf("%w: cannot read %s: %v; check the path, or record a run first (make bench)", ErrUnusable, src.Path, err)
			}
			defer f.Close()
			r = f
		}
		t := &tail{r: r}
		rd.Reset(t, src.Name, ".file", src.Name)
		results := 0
		var reps repeats
		for rd.Scan() {
			switch rec := rd.Result().(type) {
			case *benchfmt.SyntaxError:
				syntax = append(syntax, rec.Error())
			case *benchfmt.Result:
				results++
				if bad := checkValues(rec); len(bad) > 0 {
					syntax = append(syntax, bad...)
					continue
				}
				reps.add(rec)
				dropUnit(rec, "ns/op")
				if ok, _ := filter.Apply(rec); ok {
					fn(i, rec)
				}
			}
		}
		if err := rd.Err(); err != nil {
			return nil, fmt.Errorf("%w: reading %s: %v", ErrUnusable, src.Name, err)
		}
		if cut := t.cut(src.Name); cut != "" {
			syntax = append(syntax, cut)
		}
		syntax = append(syntax, reps.errors(src.Name)...)
		if results == 0 && len(syntax) == 0 {
			return nil, fmt.Errorf("%w: %s holds no benchmark results; is it `go test -bench` output?", ErrUnusable, src.Name)
		}
	}
	if len(syntax) > 0 {
		return nil, syntaxError(syntax)
	}
	return rd.Units(), nil
}

// syntaxError reports corrupt lines rather than skipping them as benchstat
// does: a dropped line could be the one that shows the regression.
func syntaxError(lines []string) error {
	seen := map[string]bool{} // a file read as both sides says it once
	lines = slices.DeleteFunc(slices.Clone(lines), func(l string) bool {
		dup := seen[l]
		seen[l] = true
		return dup
	})
	more := ""
	if len(lines) > maxSyntaxErrors {
		more = fmt.Sprintf("\n\t(and %d more)", len(lines)-maxSyntaxErrors)
		lines = lines[:maxSyntaxErrors]
	}
	return fmt.Errorf("%w: corrupt benchmark lines; fix or re-record the file:\n\t%s%s",
		ErrUnusable, strings.Join(lines, "\n\t"), more)
}

// dropUnit removes the values in unit from res in place.
func dropUnit(res *benchfmt.Result, unit string) {
	vals := res.Values[:0]
	for _, v := range res.Values {
		if unitOf(v) != unit {
			vals = append(vals, v)
		}
	}
	res.Values = vals
}

// parseFilter parses a benchfilter query, "*" when empty.
func parseFilter(q string) (*benchproc.Filter, error) {
	if q == "" {
		q = "*"
	}
	f, err := benchproc.NewFilter(q)
	if err != nil {
		return nil, fmt.Errorf("-filter %q: %w", q, err)
	}
	return f, nil
}

// unitOf and valueOf give a value as written in the file. benchfmt tidies
// ns to sec and MB to B; reports should show what the harness recorded.
func unitOf(v benchfmt.Value) string {
	if v.OrigUnit != "" {
		return v.OrigUnit
	}
	return v.Unit
}

func valueOf(v benchfmt.Value) float64 {
	if v.OrigUnit != "" {
		return v.OrigValue
	}
	return v.Value
}
