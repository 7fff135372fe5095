//go:build linux

package stream

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var h1Hello = Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}, MaxTokens: 4}

// connServer serves a short stream and counts the connections it
// accepted; seen has each request's method, URI, headers and body.
type connServer struct {
	*httptest.Server
	mu    sync.Mutex
	conns int
	seen  []*http.Request
	body  []string
}

func newConnServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *connServer {
	cs := &connServer{}
	cs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		cs.mu.Lock()
		cs.seen, cs.body = append(cs.seen, r), append(cs.body, string(b))
		cs.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, tokA+stop+done)
	}))
	cs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cs.mu.Lock()
			cs.conns++
			cs.mu.Unlock()
		}
	}
	cs.Start()
	t.Cleanup(cs.Close)
	return cs
}

// TestLeanPathTaken: a plain http:// endpoint goes over the lean path;
// https, user info and a client given its own HTTP client go through
// net/http.
func TestLeanPathTaken(t *testing.T) {
	for base, lean := range map[string]bool{
		"http://127.0.0.1:1/v1":      true,
		"http://localhost/v1?k=v":    true,
		"https://127.0.0.1:1/v1":     false,
		"http://u:p@127.0.0.1:1/v1":  false,
		"http://[fe80::1%25lo]:1/v1": false,
	} {
		c := NewClient(Endpoint{Name: "t", BaseURL: base, Model: "m"})
		assert.Equal(t, lean, c.h1 != nil, base)
	}
	c := NewClient(Endpoint{Name: "t", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, HTTPClient(&http.Client{}))
	assert.Nil(t, c.h1, "a client given its own HTTP client uses it")
	c = NewClient(Endpoint{Name: "t", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Headers: map[string]string{"X-Bad": "a\nb"}})
	assert.Nil(t, c.h1, "a header net/http refuses goes to net/http, which says so")
	p, release := NewClient(Endpoint{Name: "t", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}).Pin("", "")
	defer release()
	assert.Nil(t, p.h1, "a pinned client holds its connection in its own transport")
}

// TestLeanPathSendsWhatNetHTTPSends: the same method, URI, headers and
// body reach the server on either path.
func TestLeanPathSendsWhatNetHTTPSends(t *testing.T) {
	cs := newConnServer(t, nil)
	ep := Endpoint{Name: "t", BaseURL: cs.URL + "/v1?api-version=2", Model: "m", APIKey: "sk-test-123456789",
		Headers: map[string]string{"x-team": "a", "User-Agent": "probe/1"}}
	lean := NewClient(ep)
	require.NotNil(t, lean.h1)
	std := NewClient(ep, HTTPClient(&http.Client{Transport: &http.Transport{DisableCompression: true}}))
	for _, c := range []*Client{lean, std} {
		s := c.Do(context.Background(), h1Hello)
		require.True(t, s.OK(), s.Err)
	}
	require.Len(t, cs.seen, 2)
	a, b := cs.seen[0], cs.seen[1]
	assert.Equal(t, b.Method, a.Method)
	assert.Equal(t, b.RequestURI, a.RequestURI)
	assert.Equal(t, b.Host, a.Host)
	assert.Equal(t, b.ContentLength, a.ContentLength)
	assert.Equal(t, b.Header, a.Header)
	assert.Equal(t, cs.body[1], cs.body[0])
	assert.Equal(t, "Bearer sk-test-123456789", a.Header.Get("Authorization"))
}

// TestLeanPathKeepsConnections: requests one after another share one
// connection and say so (Reused); the first has its connect time and
// every one its first byte; a connection the server closed while idle is
// not written to, and one it said it closes is not kept.
func TestLeanPathKeepsConnections(t *testing.T) {
	closeNext := false
	var mu sync.Mutex
	cs := newConnServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if closeNext {
			w.Header().Set("Connection", "close")
			closeNext = false
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, tokA+stop+done)
	})
	cs.Config.IdleTimeout = 300 * time.Millisecond
	c := NewClient(Endpoint{Name: "t", BaseURL: cs.URL + "/v1", Model: "m"})
	require.NotNil(t, c.h1)
	defer c.CloseIdle()
	do := func() sample.Sample {
		t.Helper()
		s := c.Do(context.Background(), h1Hello)
		require.True(t, s.OK(), "%s: %s", s.ErrKind, s.Err)
		assert.Positive(t, s.TTFB)
		return s
	}
	var reused []bool
	for i := range 4 {
		s := do()
		if i == 0 {
			assert.Positive(t, s.Connect, "a new connection's connect time")
		}
		reused = append(reused, s.Reused)
	}
	assert.Equal(t, []bool{false, true, true, true}, reused)
	assert.Equal(t, 1, cs.conns)

	time.Sleep(600 * time.Millisecond) // the server closes the idle connection
	assert.False(t, do().Reused, "a connection the server closed is not written to")
	assert.Equal(t, 2, cs.conns)

	mu.Lock()
	closeNext = true
	mu.Unlock()
	do()
	assert.False(t, do().Reused, "a connection the server said it closes is not kept")
	assert.Equal(t, 3, cs.conns)
}

// TestLeanPathDoesNotReadWhatItLeaves: a stream the client ends (a line
// over the limit, a timeout) is not read on to its end: the connection is
// closed, and the server's next write fails.
func TestLeanPathDoesNotReadWhatItLeaves(t *testing.T) {
	ended := make(chan error, 2)
	cs := newConnServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		if r.URL.Query().Get("idle") == "" {
			io.WriteString(w, "data: "+strings.Repeat("x", 4<<10))
		}
		w.(http.Flusher).Flush()
		if r.URL.Query().Get("idle") != "" {
			select { // silent: the server's reader sees the client close
			case <-r.Context().Done():
				ended <- r.Context().Err()
			case <-time.After(10 * time.Second):
				ended <- nil
			}
			return
		}
		chunk := strings.Repeat(":", 1<<10)
		for start := time.Now(); time.Since(start) < 10*time.Second; {
			if _, err := io.WriteString(w, chunk); err != nil {
				ended <- err
				return
			}
			w.(http.Flusher).Flush()
		}
		ended <- nil
	})
	for name, tc := range map[string]struct {
		query string
		kind  sample.ErrorKind
	}{
		"line too long": {"", sample.KindProtocol},
		"idle":          {"?idle=1", sample.KindTimeoutIdle},
	} {
		t.Run(name, func(t *testing.T) {
			c := NewClient(Endpoint{Name: "t", BaseURL: cs.URL + "/v1" + tc.query, Model: "m",
				Timeouts: Timeouts{Idle: 200 * time.Millisecond, Total: 20 * time.Second}}, MaxLine(1<<10))
			require.NotNil(t, c.h1)
			start := time.Now()
			s := c.Do(context.Background(), h1Hello)
			assert.Equal(t, tc.kind, s.ErrKind, s.Err)
			assert.Less(t, time.Since(start), 5*time.Second)
			select {
			case err := <-ended:
				assert.Error(t, err, "the server wrote on to the end: the client read what it left")
			case <-time.After(8 * time.Second):
				t.Fatal("the server is still writing 8 s after the client ended the stream")
			}
			c.h1.mu.Lock()
			assert.Empty(t, c.h1.idle, "a stream left unread does not give its connection back")
			c.h1.mu.Unlock()
		})
	}
}

// TestLeanPathBoundsHeaders: a server that sends headers without end is
// an error once they pass net/http's bound (10 MiB), as on net/http's
// path, instead of a buffer that grows with them.
func TestLeanPathBoundsHeaders(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		go io.Copy(io.Discard, conn)
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n")
		line := "X-Pad: " + strings.Repeat("a", 1<<10) + "\r\n"
		for start := time.Now(); time.Since(start) < 20*time.Second; {
			if _, err := io.WriteString(conn, line); err != nil {
				return
			}
		}
	}()
	c := NewClient(Endpoint{Name: "t", BaseURL: "http://" + ln.Addr().String() + "/v1", Model: "m",
		Timeouts: Timeouts{Headers: 30 * time.Second}})
	require.NotNil(t, c.h1)
	s := c.Do(context.Background(), h1Hello)
	assert.Equal(t, sample.KindOther, s.ErrKind)
	assert.Contains(t, s.Err, "server response headers exceeded 10485760 bytes")
}
