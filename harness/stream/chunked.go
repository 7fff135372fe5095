package stream

import (
	"bytes"
	"errors"
	"io"
	"math"
)

// bodyFrame decodes a response body's framing as the bytes come, in
// place, for the direct read (h1raw_linux.go), which has no reader to pull
// from: chunked transfer coding with net/http's rules and bounds (its
// chunkedReader and readTrailer, whose messages it keeps), a length from
// Content-Length, or the connection's end. It can stop anywhere, in a
// chunk-size line, its CRLF or the trailer, and go on with the next bytes.
type bodyFrame struct {
	chunked bool
	left    int64 // bytes of the current chunk (or of a sized body) still to come; -1: to the connection's end
	state   frameState
	line    []byte // a chunk-size line or a trailer's line, as far as it came
	trailer int    // bytes of the trailer's lines before f.line
	excess  int64  // framing bytes beyond what the data allows (net/http's malicious-sender count)
	badCR   bool   // the byte after a chunk's data was not its CR
	done    bool   // the body ended where its framing says
	extra   bool   // bytes came after the body's end
}

type frameState uint8

const (
	frameSize    frameState = iota // in a chunk-size line
	frameData                      // in a chunk's data (or a sized body)
	frameCR                        // after a chunk's data: its CR
	frameLF                        // then its LF
	frameTrailer                   // after the last chunk: the trailer, to its blank line
)

// Bounds net/http puts on chunked framing: a chunk-size line
// (internal.maxLineLength), the trailer (its bufio buffer, which here
// is brPool's), and the overhead per chunk beyond the data.
const (
	maxChunkLine = 4096
	maxTrailer   = 1 << 10
	maxExcess    = 16 << 10
)

var (
	errChunkMalformed = errors.New("malformed chunked encoding")
	errChunkLineLong  = errors.New("header line too long")
	errChunkExcess    = errors.New("chunked encoding contains too much non-data")
	errTrailerLong    = errors.New("http: suspiciously long trailer after chunked body")
)

// newBodyFrame is the framing of a response body: chunked, length bytes
// (length >= 0), or to the connection's end (length < 0).
func newBodyFrame(chunked bool, length int64) *bodyFrame {
	f := &bodyFrame{chunked: chunked, left: length}
	switch {
	case chunked:
		f.state = frameSize
	case length == 0:
		f.done = true
	default:
		f.state = frameData
	}
	return f
}

// decode takes b, bytes as they came from the connection, and moves the
// body's data in them to the front of b: it returns how many there are.
// After the body's end, bytes are not data; they set extra.
func (f *bodyFrame) decode(b []byte) (int, error) {
	w := 0
	for r := 0; r < len(b); {
		if f.done {
			f.extra = true
			return w, nil
		}
		switch f.state {
		case frameData:
			k := len(b) - r
			if f.left >= 0 && int64(k) > f.left {
				k = int(f.left)
			}
			w += copy(b[w:], b[r:r+k])
			r += k
			if f.left < 0 {
				continue
			}
			f.left -= int64(k)
			if f.left == 0 {
				if !f.chunked {
					f.done = true
				} else {
					f.state = frameCR
				}
			}
		case frameCR:
			// Both bytes are judged together, as net/http does: one
			// byte and the connection's end is a body cut short.
			f.badCR = b[r] != '\r'
			r++
			f.state = frameLF
		case frameLF:
			if f.badCR || b[r] != '\n' {
				return w, errChunkMalformed
			}
			r++
			f.state = frameSize
		case frameSize, frameTrailer:
			i := bytes.IndexByte(b[r:], '\n')
			end := len(b)
			if i >= 0 {
				end = r + i + 1
			}
			limit := maxChunkLine // its CRLF included, as net/http's 4 KiB bufio.Reader bounds it
			if f.state == frameTrailer {
				limit = maxTrailer - f.trailer
			}
			if len(f.line)+end-r > limit {
				if f.state == frameTrailer {
					return w, errTrailerLong
				}
				return w, errChunkLineLong
			}
			f.line = append(f.line, b[r:end]...)
			r = end
			if i < 0 {
				continue
			}
			var err error
			if f.state == frameSize {
				err = f.sizeLine()
			} else {
				err = f.trailerLine()
			}
			if err != nil {
				return w, err
			}
		}
	}
	return w, nil
}

// sizeLine reads the chunk-size line in f.line, as net/http's
// beginChunk and readChunkLine do.
func (f *bodyFrame) sizeLine() error {
	p := f.line
	f.line = f.line[:0]
	if idx := bytes.IndexByte(p, '\r'); idx == -1 {
		return errors.New("chunked line ends with bare LF")
	} else if idx != len(p)-2 {
		return errors.New("invalid CR in chunked line")
	}
	p = p[:len(p)-2]
	if len(p) >= maxChunkLine {
		return errChunkLineLong
	}
	f.excess += int64(len(p)) + 2
	for len(p) > 0 && (p[len(p)-1] == ' ' || p[len(p)-1] == '\t') {
		p = p[:len(p)-1]
	}
	p, _, _ = bytes.Cut(p, []byte(";"))
	n, err := parseHex(p)
	if err != nil {
		return err
	}
	f.excess = max(f.excess-16-2*int64(n), 0)
	if f.excess > maxExcess {
		return errChunkExcess
	}
	if n == 0 {
		f.state = frameTrailer
		return nil
	}
	f.left, f.state = int64(min(n, math.MaxInt64)), frameData
	return nil
}

// trailerLine takes a line of the trailer in f.line: its fields are
// read past (a stream's have no use); a blank line ends the body.
func (f *bodyFrame) trailerLine() error {
	if string(f.line) == "\r\n" || string(f.line) == "\n" {
		f.done, f.line = true, nil
		return nil
	}
	if len(f.line) > 0 && f.line[0] != ' ' && f.line[0] != '\t' && bytes.IndexByte(f.line, ':') < 0 {
		return errors.New("malformed MIME header line: " + string(bytes.TrimRight(f.line, "\r\n")))
	}
	// A field: the trailer goes on, its bytes counted toward maxTrailer.
	f.trailer += len(f.line)
	f.line = f.line[:0]
	return nil
}

// end is the error of a connection that ended: none when the body had
// ended (or ends with the connection), io.ErrUnexpectedEOF when its
// framing wanted more.
func (f *bodyFrame) end() error {
	if f.done || (!f.chunked && f.left < 0) {
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

// parseHex is net/http's parseHexUint: a chunk's size.
func parseHex(v []byte) (n uint64, err error) {
	if len(v) == 0 {
		return 0, errors.New("empty hex number for chunk length")
	}
	for i, b := range v {
		switch {
		case '0' <= b && b <= '9':
			b = b - '0'
		case 'a' <= b && b <= 'f':
			b = b - 'a' + 10
		case 'A' <= b && b <= 'F':
			b = b - 'A' + 10
		default:
			return 0, errors.New("invalid byte in chunk length")
		}
		if i == 16 {
			return 0, errors.New("http chunk length too large")
		}
		n <<= 4
		n |= uint64(b)
	}
	return n, nil
}
