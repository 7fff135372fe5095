//go:build linux

package stream

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// The direct read of a stream on the lean path. Read through net.Conn,
// every SSE event cost two read(2) calls: the one that brought it, and
// one that found the socket empty (EAGAIN) before the goroutine parked in
// the netpoller; half the reads of a stream were empty, and on a machine
// whose system calls are dear (a VM: 3–7 µs each) they were the larger
// part of the client's CPU. Here the body is read inside one
// syscall.RawConn.Read: a read shorter than the room it was given means
// the socket was drained, so the goroutine parks at once, and the
// netpoller's edge-triggered epoll wakes it when the next bytes come (an
// edge that came before the park is kept by the poller, not lost). The
// body's framing is decoded from the bytes as they come (bodyFrame), its
// lines split and its events handled within the callback, each timed at
// the read that brought it.

// direct reads body's stream into st through lr (a lineReader with no
// reader), stamping idle on every read that gets bytes, until the stream
// or ctx ends, and returns what
// consume would: nil when the stream ended itself, else the read's error
// (io.EOF at the body's end). ok is false when the connection is not one
// it can read directly; then it has read nothing.
func (b *h1Body) direct(ctx context.Context, st *streamState, lr *lineReader, idle *idleWatch) (readErr error, ok bool) {
	sc, is := b.conn.(syscall.Conn)
	if !is {
		return nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	d := directRead{st: st, lr: lr, idle: idle, frame: newBodyFrame(b.chunked, b.length), conn: b.conn, ctx: ctx}
	// What the header reader read past the headers is the body's start.
	if n := b.br.Buffered(); n > 0 {
		p, _ := b.br.Peek(n)
		over := d.feed(p, time.Now())
		b.br.Discard(n)
		if over {
			return d.finish(b), true
		}
	}
	if d.frame.done {
		d.lr.err = d.frame.end()
		if d.lines(time.Now()) {
			return d.finish(b), true
		}
	}
	for {
		err := rc.Read(d.read)
		if err == nil || d.err != nil {
			break
		}
		if ctx.Err() != nil || !d.armed || !errors.Is(err, os.ErrDeadlineExceeded) {
			d.err = err // the context's end: the deadline it set
			break
		}
		// The probe: its deadline cleared (a passed one fails the next
		// Read at once) unless the context ended meanwhile, Read's first
		// call of d.read reads.
		d.armed = false
		d.conn.SetReadDeadline(time.Time{})
		if ctx.Err() != nil {
			d.conn.SetDeadline(aLongTimeAgo)
		}
	}
	b.probed = d.probed
	return d.finish(b), true
}

// probeAfter is how long after a read that drained the socket the direct
// read reads once more if the poller has said nothing. Such a read cannot
// see the end of the connection behind the bytes it got: a FIN or RST
// that came with them, before the poller was asked, is read only by the
// next read, and no new edge will say so. A read that leaves a line or a
// chunk unfinished (a server cut off mid-write) is followed by that next
// read at once; for one that ended at an event's end a read deadline is
// armed, once until it fires (not at every read: a timer set per event
// costs what the read saved), so that a connection cut there is seen
// within probeAfter. Bytes that come before it settle the doubt
// themselves (nothing comes after a FIN), and a stream waiting in
// silence (its first token) arms none: its last read found nothing.
const probeAfter = 100 * time.Millisecond

// directRead is the state of one direct read.
type directRead struct {
	st    *streamState
	lr    *lineReader
	idle  *idleWatch
	frame *bodyFrame
	conn  net.Conn
	err   error // the read's end: nil when the stream ended itself
	// drained: bytes of the body read after the stream ended itself
	// ([DONE]), on the way to its end, so that the connection can be
	// kept; a body that goes on past drainMax is not read further.
	drained int
	ending  bool
	ctx     context.Context
	armed   bool // a probe's read deadline is set (probeAfter)
	probed  bool // one was, to be cleared before the connection is kept
}

// drainMax bounds what is read after [DONE] to reach the body's end (the
// 4 KiB the net/http path copies to io.Discard).
const drainMax = 4 << 10

// read is the RawConn.Read callback: it reads until the socket is
// drained, handing each read's lines on, and returns true when the
// stream or the body is over.
func (d *directRead) read(fd uintptr) bool {
	for {
		room := d.lr.room()
		if d.ending {
			room = d.lr.buf[d.lr.end:] // after [DONE], bytes are read over
		}
		n, err := syscall.Read(int(fd), room)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return false // nothing yet: park until the poller says
		}
		now := time.Now()
		if err != nil {
			d.lr.err = &net.OpError{Op: "read", Net: "tcp", Source: d.conn.LocalAddr(), Addr: d.conn.RemoteAddr(), Err: os.NewSyscallError("read", err)}
			d.lines(now) // the lines before it, then the error
			return true
		}
		if n == 0 {
			d.lr.err = d.frame.end()
			d.lines(now)
			return true
		}
		d.idle.stamp(now)
		if d.put(room[:n], now) {
			return true
		}
		if n < len(room) && d.lr.start == d.lr.end && (d.ending || d.frame.state == frameSize) {
			// The socket is drained and its bytes ended at a line's and
			// a chunk's end: park without another read.
			d.arm(now)
			return false
		}
	}
}

// arm sets the probe's read deadline, unless one is set; the context's
// end, which sets a deadline in the past, is not undone by it.
func (d *directRead) arm(now time.Time) {
	if d.armed {
		return
	}
	d.armed, d.probed = true, true
	d.conn.SetReadDeadline(now.Add(probeAfter))
	if d.ctx.Err() != nil {
		d.conn.SetDeadline(aLongTimeAgo)
	}
}

// feed puts bytes already read (at now) through as a read would.
func (d *directRead) feed(p []byte, now time.Time) bool {
	for len(p) > 0 {
		room := d.lr.room()
		if d.ending {
			room = d.lr.buf[d.lr.end:]
		}
		k := copy(room, p)
		p = p[k:]
		if d.put(room[:k], now) {
			return true
		}
	}
	return false
}

// put decodes raw, bytes read into the line buffer's room at now, and
// hands on the lines they complete; true when the stream or body is over.
func (d *directRead) put(raw []byte, now time.Time) bool {
	n, err := d.frame.decode(raw)
	if d.ending {
		d.drained += n
		return err != nil || d.frame.done || d.drained > drainMax
	}
	d.lr.end += n
	switch {
	case err != nil:
		d.lr.err = err
	case d.frame.done:
		d.lr.err = d.frame.end()
	}
	return d.lines(now)
}

// lines hands st the complete lines in the buffer, brought by the read
// at now; true when the stream is over: it ended itself, or the bytes or
// the read did.
func (d *directRead) lines(now time.Time) bool {
	d.st.now = now
	for {
		b, err := d.lr.next()
		if errors.Is(err, errMore) {
			return false
		}
		if err != nil {
			d.err = err
			return true
		}
		if d.st.line(b) {
			if !d.st.done {
				return true
			}
			// [DONE]: read on to the body's end, to keep the connection.
			d.ending = true
			rest := d.lr.buf[d.lr.start:d.lr.end]
			d.drained = len(rest)
			d.lr.start, d.lr.end = 0, 0
			return d.frame.done || d.frame.extra || d.lr.err != nil || d.drained > drainMax
		}
	}
}

// finish sets what Close needs to keep the connection: the body read to
// its end, nothing after it, and returns the read's end.
func (d *directRead) finish(b *h1Body) error {
	b.eof = d.frame.done && !d.frame.extra
	if d.ending {
		return nil
	}
	return d.err
}
