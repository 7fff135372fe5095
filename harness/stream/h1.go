package stream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// The lean HTTP/1.1 path: a stream to a plain http:// endpoint with no
// proxy goes over a connection the request's own goroutine writes and
// reads, with no goroutine of its own. net/http's transport keeps two per
// connection (readLoop, writeLoop), each with its stack, and a read and a
// write buffer, for the connection's life: at 10,000 streams in flight
// they were half of the client's memory. The response is still read by
// net/http (http.ReadResponse: status, headers, chunked or sized body, its
// limits); what this path leaves out is what a stream to such an endpoint
// does not use (TLS, HTTP/2, proxies, redirects, compression, a background
// reader on idle connections). Any other endpoint, and a client given its
// own HTTP client, goes through net/http.

// h1 is a client's pool of idle HTTP/1.1 connections to its endpoint and
// the fixed part of every request it sends.
type h1 struct {
	addr  string // host:port to dial
	head  []byte // request line and headers, up to "Content-Length: "
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)
	mu    sync.Mutex
	idle  []h1Idle // most recently used last
	limit int      // idle connections kept
	ttl   time.Duration
	// maxHeader bounds a response's status line and headers.
	maxHeader int64
}

type h1Idle struct {
	conn  net.Conn
	since time.Time
}

// newH1 is the lean path to the client's endpoint, or nil when the
// endpoint needs net/http: a scheme other than http, user info, a host
// that needs encoding, a proxy, a header net/http would refuse.
func newH1(c *Client, tr *http.Transport) *h1 {
	u, err := url.Parse(c.url)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Host == "" || !plainHost(u.Host) {
		return nil
	}
	if p, err := tr.Proxy(&http.Request{URL: u}); p != nil || err != nil {
		return nil
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("Accept-Encoding", "identity")
	c.setKey(h)
	for k, v := range c.ep.Headers {
		h.Set(k, v)
	}
	if h.Get("Host") != "" || h.Get("Content-Length") != "" || h.Get("Transfer-Encoding") != "" || h.Get("Connection") != "" {
		return nil // net/http treats these apart
	}
	for k, vs := range h {
		if !validName(k) {
			return nil
		}
		for _, v := range vs {
			if !validValue(v) {
				return nil
			}
		}
	}
	var head bytes.Buffer
	head.WriteString("POST " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n")
	if h.Get("User-Agent") == "" {
		head.WriteString("User-Agent: Go-http-client/1.1\r\n") // what net/http sends
	}
	if err := h.Write(&head); err != nil {
		return nil
	}
	head.WriteString("Content-Length: ")
	port := u.Port()
	if port == "" {
		port = "80"
	}
	maxHeader := tr.MaxResponseHeaderBytes
	if maxHeader <= 0 {
		maxHeader = 10 << 20 // net/http's default
	}
	return &h1{addr: net.JoinHostPort(u.Hostname(), port), head: head.Bytes(), dial: tr.DialContext,
		limit: tr.MaxIdleConnsPerHost, ttl: tr.IdleConnTimeout, maxHeader: maxHeader}
}

// plainHost: ASCII with no zone, which net/http would send as it is.
func plainHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if h[i] <= ' ' || h[i] >= 0x7f || h[i] == '%' {
			return false
		}
	}
	return true
}

// validName and validValue are net/http's rules for a header it sends
// (RFC 7230 token; no control byte but tab): a header outside them goes
// through net/http, which refuses it by name.
func validName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		b := k[i]
		if b <= ' ' || b >= 0x7f || bytes.IndexByte([]byte(`"(),/:;<=>?@[\]{}`), b) >= 0 {
			return false
		}
	}
	return true
}

func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// reqBuf holds a request being written; brPool the response readers. Both
// are the request's while it is in flight and go back when it ends: an
// idle connection holds neither.
var (
	reqBuf = sync.Pool{New: func() any { b := make([]byte, 0, 2<<10); return &b }}
	brPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<10) }}
)

// aLongTimeAgo is a deadline that has passed: set on a connection, it
// ends the read or write blocked on it.
var aLongTimeAgo = time.Unix(1, 0)

// postRequest is what http.ReadResponse is told the response answers.
var postRequest = &http.Request{Method: http.MethodPost, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}

// max1xx is how many informational responses are skipped before the
// answer, as net/http does.
const max1xx = 5

// roundTrip sends body and returns the response with its headers read,
// calling the hooks of ctx's httptrace.ClientTrace that net/http calls
// (the dialer calls those of DNS and connect). The response's body, once
// read to its end and closed, gives the connection back to the pool;
// closed before, or after the context ended, it closes the connection.
// Errors are wrapped in *url.Error, as http.Client.Do's are.
func (p *h1) roundTrip(ctx context.Context, rawURL string, body []byte) (*http.Response, error) {
	resp, err := p.send(ctx, body)
	if err != nil {
		return nil, &url.Error{Op: "Post", URL: rawURL, Err: err}
	}
	return resp, nil
}

func (p *h1) send(ctx context.Context, body []byte) (*http.Response, error) {
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.GetConn != nil {
		trace.GetConn(p.addr)
	}
	conn, idle, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	if trace != nil && trace.GotConn != nil {
		trace.GotConn(httptrace.GotConnInfo{Conn: conn, Reused: idle.conn != nil, WasIdle: idle.conn != nil, IdleTime: since(idle.since)})
	}
	// The request's context ends whatever read or write is blocked on the
	// connection, as net/http closes it on a cancel.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(aLongTimeAgo) })
	fail := func(err error) (*http.Response, error) {
		stop()
		conn.Close()
		return nil, err
	}

	bp := reqBuf.Get().(*[]byte)
	b := append((*bp)[:0], p.head...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	_, err = conn.Write(b)
	if cap(b) <= 16<<10 { // a large prompt's buffer is not kept
		*bp = b[:0]
		reqBuf.Put(bp)
	}
	if trace != nil && trace.WroteHeaders != nil && err == nil {
		trace.WroteHeaders()
	}
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
	if err != nil {
		return fail(err)
	}

	rb := &h1Body{pool: p, conn: conn, stop: stop, src: h1Src{conn: conn, left: p.maxHeader}}
	br := brPool.Get().(*bufio.Reader)
	br.Reset(&rb.src)
	if _, err := br.Peek(1); err != nil {
		putReader(br)
		return fail(err)
	}
	if trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	var resp *http.Response
	for i := 0; ; i++ {
		resp, err = http.ReadResponse(br, postRequest)
		if err != nil {
			if rb.src.left <= 0 {
				err = fmt.Errorf("server response headers exceeded %d bytes; aborted", p.maxHeader)
			}
			putReader(br)
			return fail(err)
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		if i == max1xx {
			putReader(br)
			return fail(errors.New("too many 1xx informational responses"))
		}
	}
	rb.src.left = math.MaxInt64
	resp.Request = nil
	rb.body, rb.br, rb.keep = resp.Body, br, !resp.Close
	resp.Body = rb
	return resp, nil
}

func since(t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return time.Since(t)
}

func putReader(br *bufio.Reader) {
	br.Reset(nil)
	brPool.Put(br)
}

// get is an idle connection that is still open (and when it went idle),
// or a new one.
func (p *h1) get(ctx context.Context) (net.Conn, h1Idle, error) {
	for {
		p.mu.Lock()
		n := len(p.idle)
		if n == 0 {
			p.mu.Unlock()
			break
		}
		ic := p.idle[n-1]
		p.idle[n-1] = h1Idle{}
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		if (p.ttl > 0 && time.Since(ic.since) > p.ttl) || !open(ic.conn) {
			ic.conn.Close()
			continue
		}
		return ic.conn, ic, nil
	}
	conn, err := p.dial(ctx, "tcp", p.addr)
	return conn, h1Idle{}, err
}

// put keeps conn for the next request, closing the oldest kept ones
// that have been idle too long, or conn itself when enough are kept.
func (p *h1) put(conn net.Conn) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 && p.ttl > 0 && now.Sub(p.idle[0].since) > p.ttl {
		p.idle[0].conn.Close()
		p.idle = p.idle[1:]
	}
	if len(p.idle) >= p.limit {
		conn.Close()
		return
	}
	p.idle = append(p.idle, h1Idle{conn: conn, since: now})
}

// closeIdle closes the kept connections.
func (p *h1) closeIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ic := range p.idle {
		ic.conn.Close()
	}
	p.idle = nil
}

// h1Body is a response's body on the lean path.
type h1Body struct {
	body io.ReadCloser // net/http's reader of the body
	pool *h1
	conn net.Conn
	src  h1Src
	br   *bufio.Reader
	stop func() bool // unregisters the context's hook
	keep bool        // the server did not say it closes the connection
	eof  bool
}

// h1Src is what the response is read from: the connection, with the
// bound net/http's transport puts on response headers
// (MaxResponseHeaderBytes), so that a server sending headers without end
// is an error, not a growing buffer.
type h1Src struct {
	conn net.Conn
	left int64
}

func (s *h1Src) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, errors.New("response header read limit exhausted")
	}
	if int64(len(p)) > s.left {
		p = p[:s.left+1] // one past the limit says it was passed
	}
	n, err := s.conn.Read(p)
	s.left -= int64(n)
	return n, err
}

func (b *h1Body) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// Close gives the connection back when the body was read to its end,
// nothing came after it and the context had not ended; else it closes
// the connection first, so that net/http's reader does not read the rest
// of a body nobody wants (a stream may not end).
func (b *h1Body) Close() error {
	if b.br == nil {
		return nil
	}
	stopped := b.stop()
	if b.eof && b.keep && stopped && b.br.Buffered() == 0 {
		b.pool.put(b.conn)
	} else {
		b.conn.Close()
	}
	putReader(b.br)
	b.br = nil
	return nil
}
