package stream

import (
	"bytes"
	"errors"
	"io"
	"sync"
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
	pooled *[]byte // the buffer taken from linePool, until it is given back
}

// lineStart is the buffer a lineReader starts with: room for a usual event
// (an OpenAI chunk is 200–400 bytes, a usage chunk about as much) and what
// one read of a stream brings. A longer line doubles the buffer, up to the
// limit. Every stream in flight holds one while it waits for its next
// bytes, so at 10,000 streams its size is 10,000 times over in the heap:
// 16 KiB, as it was, was 160 MB for buffers nearly empty.
const lineStart = 1 << 10

// linePool holds the buffers of streams that ended, so that a request
// takes one instead of allocating (and clearing) its own.
var linePool = sync.Pool{New: func() any { b := make([]byte, lineStart); return &b }}

func newLineReader(r io.Reader, max int) *lineReader {
	if max+2 < lineStart {
		return &lineReader{r: r, buf: make([]byte, max+2), max: max}
	}
	p := linePool.Get().(*[]byte)
	return &lineReader{r: r, buf: *p, max: max, pooled: p}
}

// release gives the starting buffer back to the pool; the reader is not
// used after it.
func (lr *lineReader) release() {
	if lr.pooled != nil {
		linePool.Put(lr.pooled)
		lr.pooled = nil
	}
	lr.buf, lr.start, lr.end = nil, 0, 0
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
		if lr.pooled != nil {
			// Nothing points into the starting buffer any more: the
			// line next returned last is invalid once it is called again.
			linePool.Put(lr.pooled)
			lr.pooled = nil
		}
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
