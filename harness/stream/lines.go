package stream

import (
	"bytes"
	"errors"
	"io"
)

// errLineTooLong: a line longer than the client's MaxLine, which it will
// not buffer.
var errLineTooLong = errors.New("stream line over the length limit")

// lineReader splits a response body into lines as the SSE spec ends them
// (CRLF, LF or a lone CR) and hands on complete lines only. bufio.Scanner,
// which it replaces, returns the bytes after the last line end as a last
// line when the body ends or fails, so a connection cut, reset or timed out
// in the middle of a data line handed half a JSON object to the decoder:
// a protocol error that was really the network's. Here the bytes of an
// unfinished line stay behind, and the read error comes out as it is.
type lineReader struct {
	r     io.Reader
	buf   []byte
	start int // first byte not yet returned
	end   int // end of the bytes read
	max   int // longest line accepted, line end excluded
	// skipLF: the last line ended with a CR at the end of what had been
	// read; an LF first in the next read belongs to that line end.
	skipLF bool
	bom    bool // the start of the body has been checked for a BOM
	err    error
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: r, buf: make([]byte, min(16<<10, max+2)), max: max}
}

// next returns the next complete line without its line end. The line
// points into the reader's buffer and is valid until the next call. At the
// end of the body it returns io.EOF, on a failed read that error, and
// errLineTooLong for a line over the limit; Partial then says whether an
// unfinished line was left.
func (lr *lineReader) next() ([]byte, error) {
	for {
		if !lr.bom {
			// A UTF-8 byte order mark at the very start is not part of
			// the first line (the SSE spec drops it).
			got := lr.buf[lr.start:lr.end]
			switch {
			case bytes.HasPrefix(got, utf8BOM):
				lr.start += len(utf8BOM)
				lr.bom = true
			case len(got) < len(utf8BOM) && bytes.HasPrefix(utf8BOM, got) && lr.err == nil:
				lr.fill()
				continue
			default:
				lr.bom = true
			}
		}
		data := lr.buf[lr.start:lr.end]
		if lr.skipLF && len(data) > 0 {
			lr.skipLF = false
			if data[0] == '\n' {
				lr.start++
				data = data[1:]
			}
		}
		if i := lineEnd(data); i >= 0 {
			if i > lr.max {
				return nil, errLineTooLong
			}
			line := data[:i]
			lr.start += i + 1
			if data[i] == '\r' {
				switch {
				case i+1 < len(data) && data[i+1] == '\n':
					lr.start++
				case i+1 == len(data):
					lr.skipLF = true
				}
			}
			return line, nil
		}
		if len(data) > lr.max {
			return nil, errLineTooLong
		}
		if lr.err != nil {
			return nil, lr.err
		}
		lr.fill()
	}
}

// lineEnd is the index of the first CR or LF in b, or -1.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	search := b
	if i >= 0 {
		search = b[:i]
	}
	if j := bytes.IndexByte(search, '\r'); j >= 0 {
		return j
	}
	return i
}

// fill reads more of the body, first making room: the unreturned bytes move
// to the front, and the buffer doubles, up to the line limit, only when a
// line fills it.
func (lr *lineReader) fill() {
	if lr.start > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	}
	if lr.end == len(lr.buf) {
		grown := make([]byte, min(2*len(lr.buf), lr.max+2))
		copy(grown, lr.buf[:lr.end])
		lr.buf = grown
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if err == nil && n == 0 {
		return // a Reader may return 0, nil; read again
	}
	lr.err = err
}

// Partial reports how many bytes of an unfinished line are left: nonzero
// when the body ended or failed in the middle of a line.
func (lr *lineReader) Partial() int {
	if !lr.bom && bytes.HasPrefix(utf8BOM, lr.buf[lr.start:lr.end]) {
		return 0 // the start of a byte order mark is no line
	}
	return lr.end - lr.start
}

var utf8BOM = []byte("\xEF\xBB\xBF")
