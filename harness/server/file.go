package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/jsonl"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// MaxLine is the longest line a .server.jsonl file holds: one reading,
// 1 MiB. The limits of a reading (MaxSeriesPerFamily of each of the
// figures' families, MaxSeries of the others) keep a reading of vLLM's
// /metrics to a few KiB and one of a server with 100,000 series under
// 128 KiB; a reading that would be longer is written with the figures'
// families alone, and a longer line is not a reading llmsla wrote.
const MaxLine = 1 << 20

// FileName is the server file beside a run's samples file:
// results/20260101T000000Z.samples.jsonl → …Z.server.jsonl.
func FileName(samples string) string {
	return strings.TrimSuffix(strings.TrimSuffix(samples, ".jsonl"), ".samples") + ".server.jsonl"
}

// File appends readings as JSON lines (package jsonl), as sample.File
// does samples: an interrupted run leaves every reading but perhaps the
// last whole.
type File struct {
	a *jsonl.Appender
}

// Create opens path for appending; filter, when not nil, rewrites each
// line before it is written (the secrets redactor).
func Create(path string, filter func([]byte) []byte) (*File, error) {
	a, err := jsonl.Create(path, "server file", filter)
	if err != nil {
		return nil, err
	}
	return &File{a: a}, nil
}

// Write appends one reading. The first error stops further writes and is
// kept for Err.
func (w *File) Write(rd *Reading) {
	b, err := encode(rd)
	if err != nil {
		w.a.Fail(fmt.Errorf("a reading does not encode: %w", err))
		return
	}
	w.a.Line(b)
}

// encode marshals a reading within MaxLine: past it, with the figures'
// families alone.
func encode(rd *Reading) ([]byte, error) {
	b, err := json.Marshal(rd)
	if err != nil || len(b) < MaxLine {
		return b, err
	}
	cut := *rd
	cut.Series, cut.Sampled = nil, true
	for _, s := range rd.Series {
		if _, ok := figureOf(rd.Source, s.Name); ok {
			cut.Series = append(cut.Series, s)
		}
	}
	return json.Marshal(&cut)
}

// Close closes the file; its error is the file's first (Err).
func (w *File) Close() error { return w.a.Close() }

// Err is the file's first error.
func (w *File) Err() error { return w.a.Err() }

// Read reads a server file, every line checked (Check); a line over
// MaxLine, one that is not a reading, or a last line without its end (a
// file cut short: sample.ErrCut, the readings before it returned too) is
// an error naming file:line.
func Read(path string) ([]Reading, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(f, path)
}

// ReadFrom is Read of r, whose lines errors name as name:line.
func ReadFrom(r io.Reader, name string) ([]Reading, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Reading
	for n := 1; ; n++ {
		line, err := readLine(br)
		switch {
		case err == io.EOF:
			return out, nil
		case errors.Is(err, sample.ErrCut):
			return out, fmt.Errorf("%s:%d: %w (an interrupted run?)", name, n, sample.ErrCut)
		case err != nil:
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rd Reading
		if err := json.Unmarshal(line, &rd); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if err := rd.Check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		out = append(out, rd)
	}
}

// readLine reads one line within MaxLine, without its end.
func readLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		b, err := br.ReadSlice('\n')
		if len(long)+len(b) > MaxLine+1 {
			return nil, fmt.Errorf("a line longer than %d MiB: not a reading llmsla wrote", MaxLine>>20)
		}
		switch {
		case err == nil:
			return append(long, b[:len(b)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			long = append(long, b...)
		case err == io.EOF && len(long)+len(b) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, sample.ErrCut
		default:
			return nil, err
		}
	}
}

// Key is a level of a scenario on an endpoint: what figures are pooled
// over, as verdicts are.
type Key struct {
	Scenario, Endpoint string
	Level              sample.Level
}

// Figures makes each level's figures from readings (a file's, or several
// files' appended): each run's readings make a window, and the runs of a
// level merge.
func Figures(readings []Reading) map[Key]*stats.Server {
	windows := map[string]*Window{}
	keys := map[string]Key{}
	var order []string
	for i := range readings {
		rd := &readings[i]
		id := rd.Run + "\x00" + rd.Shard
		w := windows[id]
		if w == nil {
			w = NewWindow()
			windows[id], keys[id] = w, Key{rd.Scenario, rd.Endpoint, rd.Level}
			order = append(order, id)
		}
		w.Add(rd)
	}
	out := map[Key]*stats.Server{}
	for _, id := range order {
		k := keys[id]
		if out[k] == nil {
			out[k] = &stats.Server{}
		}
		out[k].Merge(windows[id].Server())
	}
	return out
}

// ReadBeside reads the server file beside each samples file (FileName)
// that has one, their readings in order: a run without a server file has
// no server figures (an objective on them fails as not measured). A file
// cut short is an error unless partial, when its readings before the cut
// are returned, and the cut in cut.
func ReadBeside(samples []string, partial bool) (readings []Reading, cut []error, err error) {
	for _, f := range samples {
		path := FileName(f)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		rds, err := Read(path)
		switch {
		case errors.Is(err, sample.ErrCut) && partial:
			cut = append(cut, err)
		case errors.Is(err, sample.ErrCut):
			return nil, nil, fmt.Errorf("%w; judge what finished with -partial", err)
		case err != nil:
			return nil, nil, err
		}
		readings = append(readings, rds...)
	}
	return readings, cut, nil
}

// Lookup is figs as the verdicts ask for a level's figures.
func Lookup(figs map[Key]*stats.Server) func(scenario, endpoint string, level sample.Level) *stats.Server {
	return func(scenario, endpoint string, level sample.Level) *stats.Server {
		return figs[Key{scenario, endpoint, level}]
	}
}
