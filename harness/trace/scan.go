package trace

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// errStop ends Each early, from its callback.
var errStop = errors.New("stop")

// Stop, returned by an Each callback, ends the reading without an error.
func Stop() error { return errStop }

// Each streams the rows spec keeps (its Start to End crop), each with its
// offset from the replay's instant 0: its timestamp less the first row's
// and less Start. It stops at the first error: the file's (a *RowError),
// or fn's.
func Each(spec Spec, fn func(row Row, off time.Duration) error) error {
	r, err := Open(spec)
	if err != nil {
		return err
	}
	defer r.Close()
	return each(r, spec, fn)
}

func each(r *Reader, spec Spec, fn func(row Row, off time.Duration) error) error {
	var origin time.Duration
	first := true
	for {
		row, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if first {
			origin, first = row.At, false
		}
		since := row.At - origin
		if spec.End > 0 && since >= spec.End {
			return nil // sorted: every later row is past the end too
		}
		if since < spec.Start {
			continue
		}
		if err := fn(row, since-spec.Start); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
}

// Summary is what a replay needs to know of a trace before it sends:
// the rows kept, their offsets (sampled, for a plan), and their lengths.
type Summary struct {
	Rows          int
	Span          time.Duration // the last kept row's offset
	Input, Output int64         // lengths asked, summed
	Hashed        bool          // some row has prefix hashes
	First         Row           // the first kept row
	// marks are the offsets of every stride-th row, thinned as the trace
	// grows so that they stay few.
	marks  []time.Duration
	stride int
}

// maxMarks bounds a Summary's sampled offsets.
const maxMarks = 2048

// Scan reads the whole trace once, checking every row, so that a bad row
// or a timestamp out of order is an error before the first request, and
// returns what a replay plans with. A crop that keeps no row is an error.
func Scan(spec Spec) (Summary, error) {
	s := Summary{stride: 1}
	err := Each(spec, func(row Row, off time.Duration) error {
		if s.Rows == 0 {
			s.First = row
		}
		if s.Rows%s.stride == 0 {
			if len(s.marks) == maxMarks {
				for i := range maxMarks / 2 {
					s.marks[i] = s.marks[2*i]
				}
				s.marks, s.stride = s.marks[:maxMarks/2], 2*s.stride
			}
			if s.Rows%s.stride == 0 {
				s.marks = append(s.marks, off)
			}
		}
		s.Rows++
		s.Span = off
		s.Input += int64(row.Input)
		s.Output += int64(row.Output)
		s.Hashed = s.Hashed || len(row.Hashes) > 0
		return nil
	})
	if err != nil {
		return Summary{}, err
	}
	if s.Rows == 0 {
		return Summary{}, fmt.Errorf("%s: no row to replay (start %v, end %v)", spec.File, spec.Start, spec.End)
	}
	return s, nil
}

// Offset is about when kept row k is due, from instant 0: exact for the
// first and the last, interpolated between sampled rows elsewhere.
func (s Summary) Offset(k int) time.Duration {
	switch {
	case k <= 0 || len(s.marks) == 0:
		return 0
	case k >= s.Rows-1:
		return s.Span
	}
	j := k / s.stride
	lo, hi := s.marks[j], s.Span
	hiRow := s.Rows - 1
	if j+1 < len(s.marks) {
		hi, hiRow = s.marks[j+1], (j+1)*s.stride
	}
	loRow := j * s.stride
	return lo + time.Duration(float64(hi-lo)*float64(k-loRow)/float64(max(hiRow-loRow, 1)))
}

// RowsBy is about how many kept rows are due by d: all of them at Span.
func (s Summary) RowsBy(d time.Duration) int {
	if d >= s.Span {
		return s.Rows
	}
	lo, hi := 0, s.Rows-1 // the first row past d, by bisection on Offset
	for lo < hi {
		mid := (lo + hi) / 2
		if s.Offset(mid) > d {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
