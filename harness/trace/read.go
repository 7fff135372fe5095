package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// Message is one message of a row that carries its own prompt.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Row is one request of a trace.
type Row struct {
	Line int           // in the file, from 1
	At   time.Duration // its timestamp on the file's clock (a datetime: from the Unix epoch)
	// Input is the prompt length asked, in tokens; Output the answer's,
	// sent as max_tokens.
	Input, Output int
	// Hashes are the row's prompt blocks (Mooncake's hash_ids): rows with
	// the same leading hashes share that prefix.
	Hashes   []int64
	Messages []Message // the row's own prompt, when it has one
}

// RowError is a row that cannot be replayed, placed by file and line.
type RowError struct {
	File string
	Line int
	Msg  string
}

func (e *RowError) Error() string { return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg }

// Reader streams the rows of a trace, one line at a time: memory is one
// row's, whatever the file's length.
type Reader struct {
	name   string
	cols   Columns
	br     *bufio.Reader
	closer io.Closer
	line   int
	prev   Row
	seen   bool
	header map[string]int // a CSV's columns by name
	buf    []byte
}

// Open opens the trace spec names for reading.
func Open(spec Spec) (*Reader, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	f, err := os.Open(spec.File)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	r, err := NewReader(spec.File, f, spec)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewReader reads a trace from rd, named name in errors.
func NewReader(name string, rd io.Reader, spec Spec) (*Reader, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	r := &Reader{name: name, cols: spec.columns(), br: bufio.NewReaderSize(rd, 64<<10)}
	if spec.Format == CSV || spec.Format == AzureCSV {
		if err := r.readHeader(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Close closes the file Open opened.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Next is the next row: io.EOF after the last, a *RowError for a row that
// cannot be read or that comes before the row above it in time.
func (r *Reader) Next() (Row, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return Row{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		row, err := r.parse(line)
		if err != nil {
			return Row{}, r.errorf("%v", err)
		}
		row.Line = r.line
		if r.seen && row.At < r.prev.At {
			return Row{}, r.errorf("timestamp %s is before line %d's %s: a trace must be sorted by time, and this is its first row out of order",
				r.stamp(row.At), r.prev.Line, r.stamp(r.prev.At))
		}
		r.prev, r.seen = Row{Line: row.Line, At: row.At}, true
		return row, nil
	}
}

// stamp writes a timestamp as the file does, for errors.
func (r *Reader) stamp(at time.Duration) string {
	if r.cols.Unit == DateTime {
		return time.Unix(0, int64(at)).UTC().Format(time.RFC3339Nano)
	}
	return strconv.FormatFloat(float64(at)/float64(unitOf(r.cols.Unit)), 'f', -1, 64) + string(r.cols.Unit)
}

func (r *Reader) errorf(format string, args ...any) error {
	return &RowError{File: r.name, Line: r.line, Msg: fmt.Sprintf(format, args...)}
}

// readLine is the next line without its end, at most MaxLine bytes; the
// slice is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		part, err := r.br.ReadSlice('\n')
		r.buf = append(r.buf, part...)
		if len(r.buf) > MaxLine {
			r.line++
			return nil, r.errorf("line longer than %d bytes: not a trace row", MaxLine)
		}
		switch {
		case err == nil:
			r.line++
			return r.bom(bytes.TrimRight(r.buf, "\r\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(r.buf) > 0:
			r.line++
			return r.bom(r.buf), nil
		case err == io.EOF:
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
	}
}

// bom drops the byte-order mark an editor on Windows puts before the
// first line; on a later line it is the line's, and refused with it.
func (r *Reader) bom(line []byte) []byte {
	if r.line == 1 {
		return bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	return line
}

// unitOf is a numeric unit's length.
func unitOf(u Unit) time.Duration {
	switch u {
	case Seconds:
		return time.Second
	case Micros:
		return time.Microsecond
	case Nanos:
		return time.Nanosecond
	}
	return time.Millisecond
}
