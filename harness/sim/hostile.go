package sim

import (
	"bytes"
	"time"
)

// The stream shapes of hostile or broken endpoints that are more than one
// write: lines cut in the middle, floods and unasked gzip. What a correct
// client reports for each is said where the fault kinds are declared.

// midline sends the first half of one more token's data line, cut inside
// its JSON, and then breaks off as the fault says. The half line is not
// counted: no client can read a token from it.
func (c *call) midline() {
	c.buf = c.buf[:0]
	c.appendToken(lorem[fewTokens%len(lorem)], false)
	cut := len(c.buf) / 2
	for c.buf[cut-1] == '\n' || c.buf[cut-1] == '\r' {
		cut++ // never a whole line: the cut must fall inside one
	}
	c.buf = c.buf[:cut]
	c.pings = false // a ping now would land inside the line
	c.flushBuf()
	switch c.tr.Fault {
	case FaultResetMidline:
		c.reset()
	case FaultStallMidline:
		c.sleepUntil(time.Now().Add(holdStall))
	case FaultAbortMidline:
		c.abort()
	}
	// truncated_midline: returning ends the chunked body cleanly, with the
	// half line as its last bytes.
}

// floodBytes is the size of the buffer a flood writes again and again:
// large enough that a write carries hundreds of tokens, and allocated once.
const floodBytes = 32 << 10

// flood sends token chunks as fast as the connection takes them, from when
// the first token is due until the client leaves.
func (c *call) flood() {
	if !c.sleepUntil(c.next) {
		return
	}
	c.buf = c.buf[:0]
	n := 0
	for len(c.buf) < floodBytes {
		c.appendToken(lorem[n%len(lorem)], false)
		n++
	}
	c.pump(n, true)
}

// floodPlain is flood for a non-stream request: the answer's JSON up to the
// opening quote of its content, then content that never ends.
func (c *call) floodPlain(body []byte) {
	open := []byte(`"content":"`)
	i := bytes.Index(body, open) + len(open)
	c.buf = append(c.buf[:0], body[:i]...)
	c.flushBuf()
	c.buf = c.buf[:0]
	n := 0
	for len(c.buf) < floodBytes {
		c.buf = append(c.buf, lorem[n%len(lorem)]...)
		n++
	}
	c.pump(n, false)
}

// pump writes c.buf, n tokens each time, until the client leaves or
// holdStall passes, without allocating. Truth counts the tokens written but
// keeps no Answer text, which would grow without bound.
func (c *call) pump(n int, stamp bool) {
	stop := time.Now().Add(holdStall)
	// A client that stops reading but stays connected would block a write
	// past any check of the clock; the deadline bounds that too.
	c.rc.SetWriteDeadline(stop)
	for c.ctx.Err() == nil && time.Now().Before(stop) {
		ready := time.Now()
		now := c.flushBuf()
		if c.failed {
			return
		}
		if stamp && c.tr.FirstToken.IsZero() {
			c.tr.FirstToken, c.tr.FirstAnswer, c.tr.FirstReady = now, now, ready
		}
		c.tr.OutputTokens += n
	}
}

// closeGzip ends an unasked gzip body with its trailer, so that the body is
// well-formed gzip: the fault is that it is gzip at all.
func (c *call) closeGzip() {
	if c.gz == nil || c.failed || c.ctx.Err() != nil {
		return
	}
	if c.gz.Close() == nil {
		c.rc.Flush()
	}
}
