package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/internal/modroot"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/trace"
)

// This file is the whole of trace replay as a load kind: its kind
// registers itself; the pacer is also the level's source (Sourced).
func init() { Register(traceKind) }

const traceExample = "{file: traces/sample.mooncake.jsonl, format: mooncake, speedup: [1, 2]}"

// traceKind is trace: a trace file replayed, one level per speedup.
var traceKind = Kind{Key: "trace", Example: traceExample, Levels: parseTrace}

// MaxSpeedup bounds a replay's speedup: a slip of the keyboard is an
// error, not a week of traffic sent in a second.
const MaxSpeedup = 10_000

// Trace replays a trace: each row is sent at its offset from the
// replay's start divided by Speedup, with a prompt of its input length
// (its own messages when it has them, else words drawn so that rows
// sharing leading hash ids share that prefix: a server's prefix cache
// sees what production's saw) and its output length as max_tokens. The
// file is read as the replay goes, a row ahead of its instant, never
// whole: memory is the requests in flight. A request that goes out late
// records its lag against the row's scaled instant, as an open loop's.
//
// A Trace is also its level's Source (Sourced): the pacer hands each row
// it sends to the prompt of that request. It is built by NewTrace, which
// scans the file first, so that a bad row is an error before any request.
type Trace struct {
	Spec    trace.Spec
	Name    string // the level's trace= label
	Speedup float64
	// MaxConcurrency caps the requests in flight (0: no cap), a
	// scenario's max_concurrency.
	MaxConcurrency int
	Seed           uint64 // seeds the prompts' words (0: a fresh draw)
	Sum            trace.Summary
	shard          Shard
	rows           *rowQueue // shared by the level's copies: its pacer fills it, its source takes from it
}

var (
	_ OpenLoop = Trace{}
	_ Sourced  = Trace{}
)

// Sourced is a level that says what its requests are as well as when
// they go (a trace's rows): the run asks it, not the scenario's fixture.
type Sourced interface {
	Pacer
	// Source is the requests of the level's runs, each the one its pacer
	// sent as i; the level's answers are not judged (latency only).
	Source() Source
	// Err is why the last run stopped before its end (the file changed
	// under it), nil when it did not.
	Err() error
}

// NewTrace scans the trace spec names and returns its replay at speedup.
func NewTrace(spec trace.Spec, speedup float64) (Trace, error) {
	sum, err := trace.Scan(spec)
	if err != nil {
		return Trace{}, err
	}
	return replay(spec, sum, speedup)
}

// replay is the replay of a scanned trace at speedup.
func replay(spec trace.Spec, sum trace.Summary, speedup float64) (Trace, error) {
	if !(speedup > 0 && speedup <= MaxSpeedup) {
		return Trace{}, fmt.Errorf("speedup %v: want a factor > 0 and ≤ %d (2: twice as fast as the trace)", speedup, MaxSpeedup)
	}
	// A slow-down past a year is past the offset a sample may hold (and
	// far enough past it, past a Duration: the schedule wrapped).
	if long := float64(sum.Span) / speedup; long > float64(sample.MaxOffset) {
		day := float64(24 * time.Hour)
		return Trace{}, fmt.Errorf("speedup %v stretches the trace (%v) to %.4g days, longer than a run may last (%.0f days)",
			speedup, sum.Span, long/day, float64(sample.MaxOffset)/day)
	}
	t := Trace{Spec: spec, Name: traceName(spec.File), Speedup: speedup, Sum: sum, rows: &rowQueue{}}
	if r := t.rate(); r > MaxRate {
		return Trace{}, fmt.Errorf("speedup %v sends the trace at %.0f req/s, more than %d", speedup, r, MaxRate)
	}
	return t, nil
}

// traceName is a file's name as a level's label: its base without the
// extension, every character but letters, digits, '.' and '_' made '_'.
func traceName(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return labelUnsafe.ReplaceAllString(base, "_")
}

var labelUnsafe = regexp.MustCompile(`[^A-Za-z0-9._]`)

// rate is the trace's mean arrival rate at the speedup, in requests per
// second.
func (t Trace) rate() float64 {
	if t.Sum.Rows < 2 || t.Sum.Span <= 0 {
		return 0
	}
	return float64(t.Sum.Rows-1) / t.Sum.Span.Seconds() * t.Speedup
}

// WithSpeedup is the same trace at another speedup: a capacity search
// over speedup steps through these.
func (t Trace) WithSpeedup(x float64) Pacer {
	t.Speedup = x
	return t
}

// parseTrace reads {file, format, speedup, start, end, columns, block}:
// the trace scanned once, a level per speedup.
func parseTrace(v Value) ([]Pacer, error) {
	m, err := v.Mapping("file", "format", "speedup", "start", "end", "columns", "block")
	if m == nil {
		return nil, err
	}
	f, ok := m["file"]
	if !ok {
		return nil, errors.Join(err, v.Missing("file", traceExample))
	}
	spec, errs := traceSpec(f, m)
	speedups := []Value{{Shape: Scalar, Text: "1", Line: v.Line}}
	if fv, ok := m["speedup"]; ok {
		items, err := fv.Each("[1, 2, 4]")
		errs, speedups = append(errs, err), items
	}
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil {
		return nil, v.Errorf("%v", err)
	}
	sum, err := trace.Scan(spec)
	if err != nil {
		return nil, f.Errorf("%v", err)
	}
	return eachLevel(Value{Shape: List, Items: speedups, Line: v.Line}, "[1, 2, 4]", func(sv Value) (Pacer, error) {
		x, err := sv.Number()
		if err != nil {
			return nil, err
		}
		t, err := replay(spec, sum, x)
		if err != nil {
			return nil, sv.Errorf("%v", err)
		}
		return t, nil
	})
}

// traceSpec reads the spec of a trace: key's file f and the mapping's
// other keys.
func traceSpec(f Value, m map[string]Value) (trace.Spec, []error) {
	spec := trace.Spec{File: traceFile(f.Text), Format: trace.Mooncake}
	var errs []error
	if fv, ok := m["format"]; ok {
		if spec.Format = trace.Format(fv.Text); !slices.Contains(trace.Formats, spec.Format) {
			errs = append(errs, fv.Errorf("%s is not a trace format (allowed: mooncake, azure_csv, jsonl, csv)", fv))
		}
	}
	for k, into := range map[string]*time.Duration{"start": &spec.Start, "end": &spec.End} {
		if fv, ok := m[k]; ok {
			d, err := time.ParseDuration(fv.Text)
			if fv.Shape != Scalar || err != nil || d < 0 {
				errs = append(errs, fv.Errorf("%s is not a duration ≥ 0 into the trace (e.g. 0s, 10m)", fv))
			}
			*into = d
		}
	}
	if fv, ok := m["block"]; ok {
		n, err := fv.Whole(1, trace.MaxTokens)
		errs = append(errs, err)
		spec.Block = n
	}
	if fv, ok := m["columns"]; ok {
		cols, err := traceColumns(fv)
		errs = append(errs, err)
		spec.Columns = cols
	}
	return spec, errs
}

// traceColumns reads a columns: mapping.
func traceColumns(v Value) (trace.Columns, error) {
	m, err := v.Mapping("timestamp", "unit", "input", "output", "messages", "hash_ids")
	var c trace.Columns
	into := map[string]*string{"timestamp": &c.Timestamp, "unit": (*string)(&c.Unit), "input": &c.Input,
		"output": &c.Output, "messages": &c.Messages, "hash_ids": &c.Hashes}
	errs := []error{err}
	for k, fv := range m {
		if fv.Shape != Scalar || fv.Text == "" {
			errs = append(errs, fv.Errorf("want a column name"))
		}
		*into[k] = fv.Text
	}
	if u, ok := m["unit"]; ok && !slices.Contains(trace.Units, c.Unit) {
		errs = append(errs, u.Errorf("%s is not a timestamp unit (allowed: s, ms, us, ns, datetime)", u))
	}
	return c, errors.Join(errs...)
}

// traceFile is a trace's path, from the module root unless absolute (a
// scenario names its files from there; go test runs in a package's
// directory).
func traceFile(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if root, err := modroot.FromWD(); err == nil {
		return filepath.Join(root, p)
	}
	return p
}

// Level is trace=<name>/speedup=<factor>.
func (t Trace) Level() sample.Level {
	return sample.NewLevel("trace", t.Name).With("speedup", strconv.FormatFloat(t.Speedup, 'f', -1, 64))
}

// WithArrivals takes the scenario's in-flight cap and seed; the trace is
// its own arrival process.
func (t Trace) WithArrivals(a Arrivals) Pacer {
	t.MaxConcurrency, t.Seed = a.MaxConcurrency, a.Seed
	return t
}

// Split gives shard s every N-th row from its I-th: the shards' rows keep
// their instants and together are the trace.
func (t Trace) Split(s Shard) (Pacer, error) {
	if t.MaxConcurrency > 0 {
		if t.MaxConcurrency < s.N {
			return nil, fmt.Errorf("max_concurrency %d cannot be split over %d shards: give each at least one", t.MaxConcurrency, s.N)
		}
		t.MaxConcurrency = s.Share(t.MaxConcurrency)
	}
	t.shard = s
	return t, nil
}

// Workers is the in-flight cap, 0 when there is none.
func (t Trace) Workers() int { return t.MaxConcurrency }

// Length is how long the replay lasts: to the last row's scaled instant.
func (t Trace) Length() time.Duration { return max(t.scale(t.Sum.Span), 1) }

// Requests is the rows due in d (this shard's share): the whole trace in
// its Length.
func (t Trace) Requests(d time.Duration) (int, bool) {
	n := t.Sum.Rows
	if d < t.Length() {
		n = t.Sum.RowsBy(time.Duration(float64(d) * t.Speedup))
	}
	return max(1, t.shard.Share(n)), true
}

// Duration is when the last of n requests is due; beyond the trace's
// rows the replay starts it again (pass).
func (t Trace) Duration(n int) (time.Duration, bool) {
	whole := max(n, 1)*max(t.shard.N, 1) - 1
	passes, k := whole/t.Sum.Rows, whole%t.Sum.Rows
	return time.Duration(passes)*t.pass() + t.scale(t.Sum.Offset(k)), true
}

// pass is how long one replay of the trace is, with one mean gap before
// the next starts again.
func (t Trace) pass() time.Duration {
	gap := time.Second
	if t.Sum.Rows > 1 && t.Sum.Span > 0 {
		gap = t.Sum.Span / time.Duration(t.Sum.Rows-1)
	}
	return t.scale(t.Sum.Span + gap)
}

// scale is a trace offset at the speedup.
func (t Trace) scale(d time.Duration) time.Duration {
	return time.Duration(math.Round(float64(d) / t.Speedup))
}

// Schedule is the offsets of this shard's first n rows (the trace again
// after its end), read from the file: for a plan and its tests, not the
// replay, which never holds them.
func (t Trace) Schedule(n int) []time.Duration {
	out := make([]time.Duration, 0, n)
	ready, done := make(chan due), make(chan struct{})
	defer close(done)
	go t.read(n, 0, ready, done)
	for d := range ready {
		out = append(out, d.at)
	}
	return out
}

// Source is the level's requests: each the row its pacer sent.
func (t Trace) Source() Source { return SourceFunc(t.rows.prompt(t)) }

// First is the trace's first n rows as prompts, outside any replay (a
// diagnosis's requests: the Ollama breakdown of the level), sized in the
// endpoint's tokens when Calibrate was told them, from a salt of their own.
func (t Trace) First(n int) (Source, error) {
	block := t.Spec.Block
	if block <= 0 {
		block = trace.DefaultBlock
	}
	tok := t.rows.calibration()
	var prompts []Prompt
	err := trace.Each(t.Spec, func(row trace.Row, _ time.Duration) error {
		if len(prompts) == n {
			return trace.Stop()
		}
		prompts = append(prompts, rowPrompt(row, ^uint64(len(prompts)), block, tok))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(prompts) == 0 {
		return nil, fmt.Errorf("%s: no row", t.Spec.File)
	}
	return SourceFunc(func(i int) Prompt { return prompts[i%len(prompts)] }), nil
}

// Calibrate sizes the rows' prompts in the endpoint's tokens (a row asks
// for Input of them, not Input words).
func (t Trace) Calibrate(tok Tokens) {
	t.rows.mu.Lock()
	defer t.rows.mu.Unlock()
	t.rows.tokens = tok
}

// Err is why the last run stopped short, nil when it did not.
func (t Trace) Err() error { return t.rows.failed() }

// Pace sends this shard's rows at their scaled instants, n of them: the
// trace again from its start when n is more than it holds. A reader
// goroutine reads the rows and builds their prompts ahead of the
// dispatcher (lookahead of them at most), so that neither reading the
// file nor drawing a prompt's words delays a request past its instant.
func (t Trace) Pace(ctx context.Context, n int, send func(i int, sched time.Time)) {
	salt := t.rows.begin(t.Seed)
	ready := make(chan due, lookahead)
	done := make(chan struct{})
	defer close(done)
	go t.read(n, salt, ready, done)
	pace(ctx, func(yield func(int, time.Duration) bool) {
		for d := range ready {
			t.rows.put(d.i, d.prompt)
			if !yield(d.i, d.at) {
				return
			}
		}
	}, t.MaxConcurrency, send)
}

// lookahead is how many requests the reader prepares ahead of the
// dispatcher.
const lookahead = 64

// due is a request ready to send: its index, instant and prompt.
type due struct {
	i      int
	at     time.Duration
	prompt Prompt
}

// read sends this shard's first n rows, as prompts, to ready, passes of
// the trace one after the other, and closes it; it stops when done is
// closed. A file that fails now (it changed since it was scanned) stops
// the run, and Err says why.
func (t Trace) read(n int, salt uint64, ready chan<- due, done <-chan struct{}) {
	defer close(ready)
	block := t.Spec.Block
	if block <= 0 {
		block = trace.DefaultBlock
	}
	shard := max(t.shard.N, 1)
	for i, pass := 0, time.Duration(0); i < n; pass += t.pass() {
		k, sent := 0, i
		err := trace.Each(t.Spec, func(row trace.Row, off time.Duration) error {
			mine := k%shard == t.shard.I
			k++
			if !mine {
				return nil
			}
			select {
			case ready <- due{i, pass + t.scale(off), rowPrompt(row, salt, block, t.rows.calibration())}:
			case <-done:
				return trace.Stop()
			}
			if i++; i == n {
				return trace.Stop()
			}
			return nil
		})
		if err != nil || i == sent {
			t.rows.fail(err)
			return
		}
		select {
		case <-done:
			return
		default:
		}
	}
}
