package stream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/stream"
)

// TestPin: a pinned client's requests go over one connection of its own
// and carry its session header; two pinned clients keep two connections;
// a released connection serves the next conversation, already open; the
// client it came from is left as it was.
func TestPin(t *testing.T) {
	var mu sync.Mutex
	type seen struct{ addr, session string }
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, seen{r.RemoteAddr, r.Header.Get("X-Session-Affinity")})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	c := stream.NewClient(stream.Endpoint{Name: "t", BaseURL: srv.URL + "/v1", Model: "m", Headers: map[string]string{"X-Team": "a"}})
	defer c.CloseIdle()
	req := stream.Request{Messages: hello().Prompt(0).Request.Messages}
	ctx := context.Background()

	a, releaseA := c.Pin("X-Session-Affinity", "run/1")
	b, releaseB := c.Pin("X-Session-Affinity", "run/2")
	var reused []bool
	for range 3 {
		for _, p := range []*stream.Client{a, b} {
			s := p.Do(ctx, req)
			require.True(t, s.OK(), s.Err)
			reused = append(reused, s.Reused)
		}
	}
	assert.Equal(t, []bool{false, false, true, true, true, true}, reused, "each opens its connection once")
	require.Len(t, got, 6)
	for i, g := range got {
		assert.Equal(t, got[i%2], g, "request %d: the same connection and header as its conversation's first", i)
	}
	assert.NotEqual(t, got[0].addr, got[1].addr, "two conversations, two connections")
	assert.Equal(t, []string{"run/1", "run/2"}, []string{got[0].session, got[1].session})
	assert.Equal(t, map[string]string{"X-Team": "a"}, c.Endpoint().Headers, "the client pinned from keeps its headers")
	assert.Equal(t, "a", a.Endpoint().Headers["X-Team"], "a pinned client has the endpoint's headers too")

	releaseA()
	next, release := c.Pin("", "")
	defer release()
	s := next.Do(ctx, req)
	require.True(t, s.OK(), s.Err)
	assert.True(t, s.Reused, "a released connection serves the next conversation, open")
	assert.Equal(t, seen{got[0].addr, ""}, got[len(got)-1], "the released connection, and no session header")
	releaseB()
}
