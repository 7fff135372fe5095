package stream

import (
	"maps"
	"net/http"
	"sync"
)

// maxIdlePins bounds the connections kept for the next conversations, as
// MaxIdleConnsPerHost bounds the client's own pool.
const maxIdlePins = 1024

// pins are the transports conversations hold, each one connection: those
// not held now are kept, connected, for the next conversation.
type pins struct {
	mu   sync.Mutex
	idle []*http.Transport
}

// Pin returns a client whose every request goes over one connection of its
// own (a transport of one connection, with the client's settings), and
// carries header set to value when header is not "": the turns of a
// conversation reach the same server, as one user's do, for a router that
// keeps a session by its connection or by that header, and for the
// server's prefix cache. release gives the connection to the next
// conversation. When the client's transport is not net/http's (a test's),
// its requests share it, with the header. A server that closes the
// connection makes the next request dial another (its sample says it was
// not reused).
func (c *Client) Pin(header, value string) (*Client, func()) {
	p := *c
	p.h1 = nil // one connection of its own: net/http's, below
	if header != "" {
		p.ep.Headers = maps.Clone(c.ep.Headers)
		if p.ep.Headers == nil {
			p.ep.Headers = map[string]string{}
		}
		p.ep.Headers[header] = value
	}
	base, ok := c.http.Transport.(*http.Transport)
	if !ok {
		return &p, func() {}
	}
	tr := c.pins.take(base)
	p.http = &http.Client{Transport: tr, CheckRedirect: c.http.CheckRedirect, Jar: c.http.Jar, Timeout: c.http.Timeout}
	return &p, func() { c.pins.give(tr) }
}

// take is an idle transport, or a new one of one connection like base.
func (ps *pins) take(base *http.Transport) *http.Transport {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if n := len(ps.idle); n > 0 {
		tr := ps.idle[n-1]
		ps.idle = ps.idle[:n-1]
		return tr
	}
	tr := base.Clone()
	tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost, tr.MaxIdleConns = 1, 1, 1
	return tr
}

// give keeps tr for the next conversation, or closes its connection when
// enough are kept.
func (ps *pins) give(tr *http.Transport) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if len(ps.idle) >= maxIdlePins {
		tr.CloseIdleConnections()
		return
	}
	ps.idle = append(ps.idle, tr)
}

// closeIdle closes the kept connections.
func (ps *pins) closeIdle() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, tr := range ps.idle {
		tr.CloseIdleConnections()
	}
	ps.idle = nil
}
