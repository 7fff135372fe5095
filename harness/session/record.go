package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
)

// Recorder is how a bench records: where, whether it may become latest.*
// and how many runs to keep, whether go test's benchmark lines are shown
// too, and what shows the progress (nil: none).
type Recorder struct {
	Dir     string
	Latest  bool
	Keep    int
	Verbose bool
	// Progress follows the progress file at path while go test runs, and
	// returns the writers go test's output goes through and what stops it.
	Progress func(path string) (stdout, stderr io.Writer, stop func())
}

// ErrNoSamples is a bench that recorded no request (go test passed
// without sending any).
var ErrNoSamples = errors.New("no samples were recorded")

// Record runs go test on the bench as its child (GoTest.Record), writing
// its recording: the benchmark lines under a header of what was
// measured, the samples file begun with its provenance, the servers'
// readings and the judge's requests beside them. A run that did not
// finish — go test failed, it was interrupted (ctx), the session stopped
// (its reason, said once) — comes back with its error, for the caller to
// judge what finished and then Keep.
func (b *Bench) Record(ctx context.Context, cfg *config.Config, run Run, g GoTest, sec *secret.Set, r Recorder, stdout, stderr io.Writer) (recording.Run, error) {
	if abs, err := filepath.Abs(r.Dir); err == nil {
		r.Dir = abs // the test binary runs in the package's directory
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return recording.Run{}, err
	}
	rec := recording.NewRun(r.Dir, recording.KindBench, time.Now(), run.Shard.I, run.Shard.N)
	header := recording.Header{Commit: Commit(), Date: time.Now(), Config: cfg.Source, Count: g.Count, Provenance: b.Provenance}
	if b.Against != "" {
		header.Count = 0 // the looks decide how many; the results say
	}
	if run.Shard.On() {
		header.Shard = run.Shard.String()
	}
	// What was measured, as configuration lines (benchstat shows them, the
	// gate compares them) and as the samples file's first line.
	if err := sample.CreateWithProvenance(rec.Samples(), b.Provenance, sec.RedactBytes); err != nil {
		return rec, fmt.Errorf("samples file: %w", err)
	}
	return rec, b.record(ctx, cfg, run, g, sec, r, rec, header.Bytes(), stdout, stderr)
}

// record runs go test on the bench into rec: a new recording under
// header, or, with none, more runs appended to rec (a bench's next look).
func (b *Bench) record(ctx context.Context, cfg *config.Config, run Run, g GoTest, sec *secret.Set, r Recorder, rec recording.Run, header []byte, stdout, stderr io.Writer) error {
	tmp := func(what, ext string) string {
		return filepath.Join(os.TempDir(), fmt.Sprintf("llmsla-%s-%s-%d%s", what, rec.Name, os.Getpid(), ext))
	}
	child := Child{Samples: rec.Samples(), Server: rec.Server(), Run: run, Skip: b.Skip(), Stop: tmp("stop", ".json")}
	defer os.Remove(child.Stop)
	if cfg.Judge != nil {
		child.JudgeSamples = rec.Judge()
	}
	out, errOut, stop := stdout, stderr, func() {}
	if r.Progress != nil {
		// Progress comes through a file of its own: go test's output is
		// the benchfmt record.
		child.Progress = tmp("progress", ".jsonl")
		out, errOut, stop = r.Progress(child.Progress)
	}
	err := g.Record(ctx, rec.Txt(), header, child, sec, r.Verbose, out, errOut)
	stop()
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause // the signal that interrupted it
	}
	if rec, rerr := ReadStop(child.Stop); rerr != nil {
		err = fmt.Errorf("the run stopped, and why cannot be read: %w", rerr)
	} else if rec != nil {
		err = fmt.Errorf("stopped (%s): %s", rec.Why, rec.Message)
	}
	if _, serr := os.Stat(rec.Samples()); serr != nil && err == nil {
		err = ErrNoSamples
	}
	return err
}

// File files a judged run: a run that did not finish (err) as a partial
// run (recording.Run.MarkPartial), which no reader of whole runs takes
// for one; a finished one that can be judged as latest.* when r says so,
// the oldest beyond r.Keep removed. It returns where the run is, and why
// latest.* did not change ("" when it did, or was not to).
func (r Recorder) File(rec recording.Run, runErr error, judged bool) (recording.Run, string, error) {
	latest := recording.Latest(rec.Dir).Txt()
	switch {
	case runErr != nil:
		kept, err := rec.MarkPartial()
		return kept, fmt.Sprintf("the run did not finish: what it measured is in %s (a partial run); %s and its samples are unchanged", kept.Txt(), latest), err
	case !judged:
		return rec, fmt.Sprintf("the run cannot be judged (above); %s and its samples are unchanged", latest), nil
	case !r.Latest:
		return rec, "", nil
	}
	if err := rec.Promote(); err != nil {
		return rec, "", err
	}
	if err := recording.Retain(rec.Dir, r.Keep); err != nil {
		return rec, "", fmt.Errorf("keeping %d runs in %s: %w", r.Keep, rec.Dir, err)
	}
	return rec, "", nil
}
