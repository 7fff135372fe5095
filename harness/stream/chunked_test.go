package stream

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http/httputil"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// frameAll feeds in to f in pieces cut at the cuts, as reads would bring
// them, and returns the data and the first error.
func frameAll(f *bodyFrame, in []byte, cuts ...int) ([]byte, error) {
	var out []byte
	prev := 0
	for _, at := range append(cuts, len(in)) {
		at = min(max(at, prev), len(in))
		p := bytes.Clone(in[prev:at])
		prev = at
		n, err := f.decode(p)
		out = append(out, p[:n]...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// FuzzBodyFrame holds the direct read's chunked decoding to net/http's
// (httputil.NewChunkedReader is its chunkedReader), for any bytes cut
// anywhere: the same data, and an error where it errs. net/http's
// reader stops at the last chunk, before the trailer, which bodyFrame
// reads on (TestBodyFrame).
//
//	go test -run '^$' -fuzz FuzzBodyFrame -fuzztime 30s ./harness/stream/
func FuzzBodyFrame(f *testing.F) {
	for _, in := range []string{
		"5\r\nhello\r\n0\r\n\r\n",
		"1a;ext=1\r\n" + strings.Repeat("x", 26) + "\r\n0\r\n\r\n",
		"5 \t\r\nhello\r\n0\r\n",
		"5\nhello\r\n0\r\n\r\n",
		"5\r\nhelloXY0\r\n\r\n",
		"5\r\nhelloX\n0\r\n\r\n",
		"5\r\nhel",
		"g\r\n",
		"\r\n",
		"11111111111111111\r\n",
		strings.Repeat("1\r\nx\r\n", 50) + "0\r\n\r\n",
		"1;" + strings.Repeat("e", 5000) + "\r\nx\r\n",
		strings.Repeat("1;"+strings.Repeat("e", 100)+"\r\nx\r\n", 200),
		"5\r\nhe\rlo\r\n0\r\n",
		"5\r\r\nhello\r\n",
	} {
		f.Add([]byte(in), uint16(3), uint16(9))
	}
	f.Fuzz(fuzzBodyFrameOne)
}

func fuzzBodyFrameOne(t *testing.T, in []byte, cut1, cut2 uint16) {
	want, werr := io.ReadAll(httputil.NewChunkedReader(bufio.NewReaderSize(bytes.NewReader(in), 4096)))
	fr := newBodyFrame(true, -1)
	got, gerr := frameAll(fr, in, int(cut1), int(cut2))
	// Where net/http's reader ended well, at the last chunk, the
	// frame has reached the trailer with no error on the way.
	if werr == nil {
		if gerr != nil && fr.state != frameTrailer {
			t.Fatalf("%q: error %v where net/http read %q to the last chunk", in, gerr, want)
		}
		if fr.state != frameTrailer && !fr.done {
			t.Fatalf("%q: net/http read to the last chunk, the frame is in state %d", in, fr.state)
		}
	} else if errors.Is(werr, io.ErrUnexpectedEOF) {
		if gerr != nil || fr.done || fr.state == frameTrailer {
			t.Fatalf("%q: net/http wanted more (%v); the frame: %v, done %v, state %d", in, werr, gerr, fr.done, fr.state)
		}
		assert.Equal(t, io.ErrUnexpectedEOF, fr.end())
	} else if gerr == nil {
		t.Fatalf("%q: net/http: %v; the frame took it (data %q)", in, werr, got)
	} else if gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %q, net/http's %q", in, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q: data %q, net/http's %q", in, got, want)
	}
}

// TestBodyFrame: the trailer, sized bodies, a body to the connection's
// end, and bytes after the end.
func TestBodyFrame(t *testing.T) {
	type want struct {
		data  string
		err   string // "" none
		done  bool
		extra bool
		end   error // what the connection's end would be
	}
	cases := map[string]struct {
		chunked bool
		length  int64
		in      string
		want    want
	}{
		"no trailer":          {true, -1, "3\r\nabc\r\n0\r\n\r\n", want{data: "abc", done: true, end: io.EOF}},
		"trailer fields":      {true, -1, "3\r\nabc\r\n0\r\nX-A: 1\r\nX-B: 2\r\n\r\n", want{data: "abc", done: true, end: io.EOF}},
		"trailer unfinished":  {true, -1, "3\r\nabc\r\n0\r\nX-A: 1\r\n", want{data: "abc", end: io.ErrUnexpectedEOF}},
		"trailer too long":    {true, -1, "0\r\nX-A: " + strings.Repeat("a", maxTrailer) + "\r\n\r\n", want{err: errTrailerLong.Error(), end: io.ErrUnexpectedEOF}},
		"trailer many fields": {true, -1, "0\r\n" + strings.Repeat("X-A: aaaaaaaaaa\r\n", 80) + "\r\n", want{err: errTrailerLong.Error(), end: io.ErrUnexpectedEOF}},
		"trailer malformed":   {true, -1, "0\r\nnocolon\r\n\r\n", want{err: "malformed MIME header line: nocolon", end: io.ErrUnexpectedEOF}},
		"after the end":       {true, -1, "1\r\na\r\n0\r\n\r\nHTTP/1.1", want{data: "a", done: true, extra: true, end: io.EOF}},
		"sized":               {false, 5, "hello", want{data: "hello", done: true, end: io.EOF}},
		"sized short":         {false, 5, "hel", want{data: "hel", end: io.ErrUnexpectedEOF}},
		"sized and more":      {false, 2, "hello", want{data: "he", done: true, extra: true, end: io.EOF}},
		"to the end":          {false, -1, "hello", want{data: "hello", end: io.EOF}},
		"empty":               {false, 0, "", want{done: true, end: io.EOF}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for cut := 0; cut <= len(tc.in); cut++ {
				f := newBodyFrame(tc.chunked, tc.length)
				data, err := frameAll(f, []byte(tc.in), cut, cut+1)
				got := want{data: string(data), done: f.done, extra: f.extra, end: f.end()}
				if err != nil {
					got.err = err.Error()
				}
				if !assert.Equal(t, tc.want, got, "cut at %d", cut) {
					return
				}
			}
		})
	}
}
