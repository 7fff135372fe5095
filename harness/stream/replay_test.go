package stream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// vendorDir holds recorded streams, one vendor shape a file: a header of
// "#" lines (what the shape is, and the documentation page or source file
// it was written from, on "# source:" lines), a blank line, then the body
// exactly as the server sends it.
const vendorDir = "testdata/vendors"

// vendorStream is one file of vendorDir: its header and its body cut into
// blocks, each an event with the blank line that ends it (a body that
// ends without one keeps what is left as a last block).
type vendorStream struct {
	name    string
	sources []string
	blocks  []string
}

func readVendorStream(t testing.TB, name string) vendorStream {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vendorDir, name))
	if err != nil {
		t.Fatal(err)
	}
	v := vendorStream{name: name}
	text := string(b)
	for strings.HasPrefix(text, "#") {
		line, rest, _ := strings.Cut(text, "\n")
		if src, ok := strings.CutPrefix(line, "# source: "); ok {
			v.sources = append(v.sources, src)
		}
		text = rest
	}
	body, ok := strings.CutPrefix(text, "\n")
	if !ok {
		t.Fatalf("%s: no blank line between the header and the body", name)
	}
	for body != "" {
		i := strings.Index(body, "\n\n")
		if i < 0 {
			v.blocks = append(v.blocks, body)
			break
		}
		v.blocks, body = append(v.blocks, body[:i+2]), body[i+2:]
	}
	return v
}

// replayGap is the pause before each block: the readings of consecutive
// events are that far apart, and a reading is placed in the gap after
// the event it belongs to.
const replayGap = 10 * time.Millisecond

// replay sends v's blocks to one request, replayGap apart, and returns
// its sample with the instant the server began writing each block.
func replay(t testing.TB, v vendorStream, opts ...ClientOption) (sample.Sample, []time.Time) {
	t.Helper()
	var mu sync.Mutex
	var writes []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for _, b := range v.blocks {
			time.Sleep(replayGap)
			mu.Lock()
			writes = append(writes, time.Now())
			mu.Unlock()
			io.WriteString(w, b)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	c := NewClient(Endpoint{Name: "vendor", BaseURL: srv.URL + "/v1", Model: "m"}, opts...)
	defer c.CloseIdle()
	s := c.Do(context.Background(), helloRequest)
	mu.Lock()
	defer mu.Unlock()
	return s, writes
}

// inBlock reports whether the instant t0+d fell after the server began
// writing block k and before it began the next (or within a gap of the
// last): the reading belongs to that block.
func inBlock(writes []time.Time, t0 time.Time, d time.Duration, k int) bool {
	if d <= 0 || k < 0 || k >= len(writes) {
		return false
	}
	at := t0.Add(d)
	next := writes[k].Add(replayGap)
	if k+1 < len(writes) {
		next = writes[k+1]
	}
	return !at.Before(writes[k]) && at.Before(next)
}
