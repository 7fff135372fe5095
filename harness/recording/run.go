package recording

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/atomicfile"
)

// The write side: every recorded run's files are named, stamped,
// promoted and retained here, by the package that reads them.

// Run names the files of one recorded run in a directory: Dir/Name.txt
// (the benchmark lines), .samples.jsonl (every request), .server.jsonl
// (the servers' readings), .judge.jsonl (the judge's requests) and
// .summary.json (the verdicts).
type Run struct {
	Dir, Name string
}

// stampLayout is the UTC time a run's name starts with: names sort as
// times.
const stampLayout = "20060102T150405Z"

// Kinds of recorded runs besides a bench's: their files start with the
// kind, so that neither the gate's walk nor Retain mistakes one for a
// bench.
const (
	KindBench    = ""
	KindCapacity = "capacity"
	KindAB       = "ab"
)

// partial marks a run that did not finish (go test failed, the run was
// stopped or interrupted): its files are kept, under a name no reader of
// whole runs takes for one.
const partial = ".partial"

// NewRun names a run of kind started at t in dir; a shard's run (n > 1)
// carries its place, so that shards writing to one volume do not collide.
func NewRun(dir, kind string, t time.Time, shardI, shardN int) Run {
	name := t.UTC().Format(stampLayout)
	if kind != KindBench {
		name = kind + "-" + name
	}
	if shardN > 1 {
		name += fmt.Sprintf(".shard%dof%d", shardI, shardN)
	}
	return Run{Dir: dir, Name: name}
}

// Stamp is the run's start as its name says it ("20261201T101500Z").
func (r Run) Stamp() string {
	s := strings.TrimPrefix(strings.TrimPrefix(r.Name, KindCapacity+"-"), KindAB+"-")
	s, _, _ = strings.Cut(s, ".")
	return s
}

func (r Run) file(ext string) string { return filepath.Join(r.Dir, r.Name+ext) }

// Txt is the run's benchmark lines.
func (r Run) Txt() string { return r.file(".txt") }

// Samples is the run's samples file.
func (r Run) Samples() string { return r.file(".samples.jsonl") }

// Server is the run's servers' readings.
func (r Run) Server() string { return r.file(".server.jsonl") }

// Judge is the judge's own requests of the run.
func (r Run) Judge() string { return r.file(".judge.jsonl") }

// Summary is the run's verdicts as JSON.
func (r Run) Summary() string { return r.file(".summary.json") }

// files are the run's files, those that exist.
func (r Run) files() []string {
	var out []string
	for _, f := range []string{r.Txt(), r.Samples(), r.Server(), r.Judge(), r.Summary()} {
		if _, err := os.Stat(f); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// ServerBeside is the server file beside a samples file:
// results/X.samples.jsonl → results/X.server.jsonl.
func ServerBeside(samples string) string {
	return strings.TrimSuffix(strings.TrimSuffix(samples, ".jsonl"), ".samples") + ".server.jsonl"
}

// Latest is the run results/latest.* of dir: what `make gate` and `make
// baseline` read.
func Latest(dir string) Run { return Run{Dir: dir, Name: "latest"} }

// Promote makes r the latest run of its directory: every file of r is
// staged and then renamed over latest.* together (atomicfile.Replace), the
// samples and the servers' readings before the benchmark lines, so that a
// failure leaves the previous set whole and a reader never sees new lines
// beside old samples. A latest.* file that r has no counterpart of is
// removed first: it is not this run's.
func (r Run) Promote() error {
	latest := Latest(r.Dir)
	var copies []atomicfile.Copy
	for _, p := range [][2]string{{r.Server(), latest.Server()}, {r.Judge(), latest.Judge()}, {r.Samples(), latest.Samples()}, {r.Summary(), latest.Summary()}, {r.Txt(), latest.Txt()}} {
		if _, err := os.Stat(p[0]); err == nil {
			copies = append(copies, atomicfile.Copy{From: p[0], To: p[1]})
		} else if err := os.Remove(p[1]); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if len(copies) == 0 || copies[len(copies)-1].To != latest.Txt() {
		return fmt.Errorf("%s: no benchmark lines to promote", r.Txt())
	}
	return atomicfile.Replace(copies...)
}

// PromoteTo copies a run's benchmark lines and samples to a baseline's
// (golden/baseline.txt and golden/baseline.samples.jsonl), the samples
// first, together.
func PromoteTo(txt, samples, to string) error {
	return atomicfile.Replace(atomicfile.Copy{From: samples, To: SamplesBeside(to)}, atomicfile.Copy{From: txt, To: to})
}

// MarkPartial renames the run's files to Name.partial.*, and returns the
// run so named: a run that did not finish is kept for what it holds, but
// no reader of whole runs (Latest, the gate's walk of a directory,
// Retain's count) takes it for one.
func (r Run) MarkPartial() (Run, error) {
	if strings.HasSuffix(r.Name, partial) {
		return r, nil
	}
	p := Run{Dir: r.Dir, Name: r.Name + partial}
	var errs []error
	for _, f := range r.files() {
		errs = append(errs, os.Rename(f, p.file(strings.TrimPrefix(f, r.file("")))))
	}
	return p, errors.Join(errs...)
}

// runFile is a recorded run's file: its name (a stamp, a kind's stamp,
// a shard's, a partial run's) and which file of the run it is.
var runFile = regexp.MustCompile(`^((?:(?:capacity|ab)-)?\d{8}T\d{6}Z(?:\.shard\d+of\d+)?(?:\.partial)?)\.(txt|samples\.jsonl|summary\.json|judge\.jsonl|server\.jsonl)$`)

// Retain removes the oldest recorded runs of dir beyond keep (0 keeps
// all), each run's files together, counting runs by name. latest.*, a
// baseline, and any file not named as llmsla names its runs are never
// touched.
func Retain(dir string, keep int) error {
	if keep == 0 {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	files := map[string][]string{}
	for _, e := range entries {
		if m := runFile.FindStringSubmatch(e.Name()); m != nil && e.Type().IsRegular() {
			files[m[1]] = append(files[m[1]], e.Name())
		}
	}
	names := make([]string, 0, len(files))
	for s := range files {
		names = append(names, s)
	}
	// By time, whatever the kind: the stamp after the kind's prefix.
	slices.SortFunc(names, func(a, b string) int {
		return strings.Compare(Run{Name: a}.Stamp()+a, Run{Name: b}.Stamp()+b)
	})
	var errs []error
	for _, s := range names[:max(len(names)-keep, 0)] {
		for _, name := range files[s] {
			errs = append(errs, os.Remove(filepath.Join(dir, name)))
		}
	}
	return errors.Join(errs...)
}
