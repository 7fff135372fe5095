package sample

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// MaxLine is the longest line a samples file may hold: 16 MiB. A sample
// keeps at most 1 MiB of its answer (stream.MaxContent's default), 6 MiB
// once JSON-escaped, and its error message is cut short: a longer line is
// not a sample llmsla wrote, and it is refused when its first 16 MiB are
// read, never read whole.
const MaxLine = 16 << 20

// ErrCut is wrapped by Read's error when a file's last line has no end: the
// file was cut short (an interrupted run, a copy that stopped). Read then
// returns the samples before it too, for a caller that says it takes
// partial data (llmsla verdict -partial, a bench that was interrupted).
var ErrCut = errors.New("the file was cut short: its last line has no end")

// Scanner reads a samples file one sample at a time, in memory bounded by
// MaxLine whatever the file's size: a reader that needs every sample at
// once (Read, ReadAll) keeps them; one that does not streams. Each
// sample is checked as Read checks it; the first problem stops the scan,
// and Err says where it is (file:line).
type Scanner struct {
	r     *bufio.Reader
	name  string
	line  int
	s     Sample
	err   error
	long  []byte        // a line longer than the reader's buffer, being joined
	total time.Duration // the requests' durations so far, bounded by maxTotal
	prov  Provenance    // the record on the first line, if any
}

// NewScanner returns a Scanner of r, whose lines errors name as name:line.
func NewScanner(r io.Reader, name string) *Scanner {
	return &Scanner{r: bufio.NewReaderSize(r, 64<<10), name: name}
}

// Scan reads the next sample: false at the end of the file or at the first
// problem, which Err returns.
func (sc *Scanner) Scan() bool {
	for sc.err == nil {
		b, last, err := sc.next()
		if err != nil {
			sc.err = err
			return false
		}
		if len(bytes.TrimSpace(b)) == 0 {
			if last {
				sc.err = io.EOF
				return false
			}
			continue
		}
		if last {
			sc.err = fmt.Errorf("%s:%d: %w (an interrupted run?)", sc.name, sc.line, ErrCut)
			return false
		}
		if bytes.HasPrefix(b, provenancePrefix) {
			if err := sc.scanProvenance(b); err != nil {
				sc.err = fmt.Errorf("%s:%d: %w", sc.name, sc.line, err)
				return false
			}
			continue
		}
		if err := sc.decode(b); err != nil {
			sc.err = fmt.Errorf("%s:%d: %w", sc.name, sc.line, err)
			return false
		}
		return true
	}
	return false
}

// Sample is the sample Scan read: valid until the next Scan.
func (sc *Scanner) Sample() *Sample { return &sc.s }

// Line is the line of the file the last sample was read from.
func (sc *Scanner) Line() int { return sc.line }

// Err is the problem that stopped the scan: nil at the end of a whole
// file, an error wrapping ErrCut when its last line has no end.
func (sc *Scanner) Err() error {
	if sc.err == io.EOF {
		return nil
	}
	return sc.err
}

// next returns the next line, without its newline; last says it ended
// the file without one. A line over MaxLine is an error when its first
// MaxLine bytes are read.
func (sc *Scanner) next() (line []byte, last bool, err error) {
	sc.line++
	sc.long = sc.long[:0]
	for {
		b, err := sc.r.ReadSlice('\n')
		switch {
		case err == nil && len(sc.long) == 0:
			return b[:len(b)-1], false, nil
		case err == nil:
			return append(sc.long, b[:len(b)-1]...), false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(sc.long)+len(b) > MaxLine {
				return nil, false, fmt.Errorf("%s:%d: a line longer than %d MiB: not a sample llmsla wrote (a sample keeps 1 MiB of its answer)", sc.name, sc.line, MaxLine>>20)
			}
			sc.long = append(sc.long, b...)
		case err == io.EOF:
			return append(sc.long, b...), true, nil
		default:
			return nil, false, fmt.Errorf("%s: %w", sc.name, err)
		}
	}
}

// decode reads line b into sc.s and checks it (Check).
func (sc *Scanner) decode(b []byte) error {
	if len(b) > MaxLine {
		return fmt.Errorf("a line longer than %d MiB: not a sample", MaxLine>>20)
	}
	sc.s = Sample{}
	s := &sc.s
	if err := json.Unmarshal(b, s); err != nil {
		return err
	}
	if missing := s.missing(); len(missing) > 0 {
		// null or {} decodes to a zero sample, which would count as a
		// success of no scenario that took no time.
		return fmt.Errorf("not a sample: no %s (every sample has scenario, endpoint and t0)", strings.Join(missing, ", "))
	}
	migrate(s, b)
	if err := s.Check(); err != nil {
		return err
	}
	sc.total += s.Total
	if sc.total > maxTotal || sc.total < 0 {
		return errTotal
	}
	return nil
}

// maxTotal bounds the sum of the requests' durations a file or a pool of
// files may hold, 2^62 ns (146 years): with every request within
// MaxDuration, sums of durations over any number of them (the ITL
// histograms merged, the means) cannot overflow.
const maxTotal = time.Duration(1 << 62)

var errTotal = fmt.Errorf("the requests add up to more than %d years (total_ns): not a recording, and their sums would overflow", int(maxTotal/(24*time.Hour)/365))

// missing lists the fields every written sample has that s lacks.
func (s *Sample) missing() []string {
	var out []string
	if s.Scenario == "" {
		out = append(out, "scenario")
	}
	if s.Endpoint == "" {
		out = append(out, "endpoint")
	}
	if s.Start.IsZero() {
		out = append(out, "t0")
	}
	return out
}

// legacy holds fields of older sample files that Read migrates: before
// levels had labels, a sample carried its closed-loop concurrency alone;
// before the ITL histogram, it kept every inter-token gap.
type legacy struct {
	Concurrency int             `json:"concurrency"`
	Gaps        []time.Duration `json:"gaps_ns"`
}

var gapsKey = []byte(`"gaps_ns"`)

// migrate fills the fields of s that a file written before them holds in
// their old form: "concurrency": 5 as level "concurrency=5", "gaps_ns" as
// the ITL histogram.
func migrate(s *Sample, b []byte) {
	if s.Level != "" && (s.ITL != nil || !bytes.Contains(b, gapsKey)) {
		return
	}
	var old legacy
	if json.Unmarshal(b, &old) != nil {
		return
	}
	if s.Level == "" && old.Concurrency > 0 {
		s.Level = NewLevel("concurrency", old.Concurrency)
	}
	if s.ITL == nil && len(old.Gaps) > 0 {
		s.ITL = new(Hist)
		for _, g := range old.Gaps {
			s.ITL.Add(g)
		}
	}
}

// Read reads a JSONL sample file whole, every line checked (Check). A
// last line without its newline is an error wrapping ErrCut, returned with
// the samples before it; a bad line elsewhere (not JSON, over MaxLine,
// without a scenario, endpoint or t0, or holding what no request can
// measure) is an error naming file and line. Files written before levels
// had labels ("concurrency": 5) read as level "concurrency=5", and their
// "gaps_ns" as the ITL histogram. It keeps every sample, in memory that
// grows with the file (Scanner streams).
func Read(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sample
	sc := NewScanner(f, path)
	for sc.Scan() {
		out = append(out, *sc.Sample())
	}
	switch err := sc.Err(); {
	case errors.Is(err, ErrCut):
		return out, err
	case err != nil:
		return nil, err
	}
	return out, nil
}
