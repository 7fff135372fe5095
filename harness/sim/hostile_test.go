package sim

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestFlood reads 16 MiB of a flood and checks its shape, that the server
// counts what it sent, that it stops when the client leaves, and that it
// allocates next to nothing while it floods: the fault exists to measure a
// client's memory, so its own must not be in the way.
func TestFlood(t *testing.T) {
	cases := map[string]struct {
		body   string
		prefix string // of the body
		check  func(t *testing.T, head []byte)
		// minTokens is a lower bound on the tokens that n bytes carry.
		minTokens func(n int64) int
	}{
		"stream": {body: streamBody, prefix: `data: {"id":"chatcmpl-sim-0"`,
			check: func(t *testing.T, head []byte) {
				evs := bytes.Split(head, []byte("\n\n"))
				for i, ev := range evs[1 : len(evs)-1] { // the role chunk, then tokens; the last may be cut
					c := decodeChunk(t, strings.TrimPrefix(string(ev), "data: "))
					if d := c.Choices[0].Delta; d.Content == nil || *d.Content == "" || c.Choices[0].FinishReason != nil {
						t.Fatalf("event %d of the flood is not a token chunk: %q", i+1, ev)
					}
				}
			},
			minTokens: func(n int64) int { return int(n / 200) }}, // a token chunk is under 200 bytes
		"plain": {body: plainBody, prefix: `{"choices":[{"finish_reason":"stop","index":0,"message":{"content":"lorem ipsum `,
			minTokens: func(n int64) int { return int(n / 13) }}, // "exercitation " is the longest word
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, url := Start(t, fast())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(tc.body))
			req.Header.Set(FaultHeader, FaultFlood)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			head := make([]byte, 64<<10)
			if _, err := io.ReadFull(resp.Body, head); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(head, []byte(tc.prefix)) {
				t.Fatalf("flood starts %.120q, want %q", head, tc.prefix)
			}
			if tc.check != nil {
				tc.check(t, head)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n, err := io.CopyN(io.Discard, resp.Body, 16<<20)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("flood ended after %d bytes: %v", n, err)
			}
			cancel()
			resp.Body.Close()
			if !srv.WaitIdle(2 * time.Second) {
				t.Fatal("handler still running after the client left")
			}
			// Client and server share this process; both allocate nothing
			// per read or write, so a per-token allocation anywhere shows.
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes allocated while %d flowed", alloc, n)
			if alloc > uint64(n)/64 {
				t.Errorf("%d bytes allocated while %d flowed", alloc, n)
			}
			tr := srv.Truth()[0]
			read := n + int64(len(head))
			if tr.Fault != FaultFlood || tr.Status != 200 || !tr.Done || tr.Finish != "" ||
				tr.OutputTokens < tc.minTokens(read) || tr.Answer != "" {
				t.Errorf("truth: fault %q, status %d, done %v, finish %q, %d tokens, %d bytes of answer; "+
					"want flood, 200, true, none, at least %d tokens, no answer kept",
					tr.Fault, tr.Status, tr.Done, tr.Finish, tr.OutputTokens, len(tr.Answer), tc.minTokens(read))
			}
			if tr.Stream && tr.FirstToken.Sub(tr.Received) < tr.TTFTDelay {
				t.Errorf("flood began %v after arrival, before the TTFT delay %v", tr.FirstToken.Sub(tr.Received), tr.TTFTDelay)
			}
		})
	}
}

// TestGzipUnasked reads the gzip body raw, as a client that does not ask
// for gzip sees it, and through Go's default client, which asks by itself
// and decodes it silently.
func TestGzipUnasked(t *testing.T) {
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer raw.CloseIdleConnections()
	cases := map[string]struct {
		client *http.Client
		body   string
		asked  bool // the transport asked for gzip and decoded it
	}{
		"stream":             {client: raw, body: streamBody},
		"plain":              {client: raw, body: plainBody},
		"stream, Go decodes": {client: http.DefaultClient, body: streamBody, asked: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := fast()
			cfg.TPOT = 5 * time.Millisecond
			srv, url := Start(t, cfg)
			resp, err := post(t, tc.client, url, tc.body, FaultGzipUnasked)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 || resp.Uncompressed != tc.asked ||
				(resp.Header.Get("Content-Encoding") == "gzip") == tc.asked {
				t.Fatalf("status %d, Content-Encoding %q, decoded by Go %v", resp.StatusCode,
					resp.Header.Get("Content-Encoding"), resp.Uncompressed)
			}
			var body io.Reader = resp.Body
			if !tc.asked {
				br := bufio.NewReader(resp.Body)
				if magic, _ := br.Peek(2); !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
					t.Fatalf("body starts %q, not gzip", magic)
				}
				zr, err := gzip.NewReader(br)
				if err != nil {
					t.Fatal(err)
				}
				body = zr
			}
			if tc.body == plainBody {
				var got struct {
					Usage struct {
						CompletionTokens int `json:"completion_tokens"`
					}
				}
				if err := json.NewDecoder(body).Decode(&got); err != nil || got.Usage.CompletionTokens != 6 {
					t.Errorf("decoded body: %v, %d tokens", err, got.Usage.CompletionTokens)
				}
				return
			}
			evs, err := readSSE(t, body, "\n")
			s := summarize(t, evs)
			if err != io.EOF || s.tokens != 6 || s.finish != "stop" || !s.done {
				t.Errorf("decoded stream: end %v, %d tokens, finish %q, [DONE] %v", err, s.tokens, s.finish, s.done)
			}
			// Flushed per event, so the client could read the first token
			// before the server wrote the end: a gzip stream flushed only
			// at its close cannot be read before then. (Timing the gaps
			// between tokens instead fails whenever a late token makes
			// the next one due at once.)
			r := srv.Truth()[0]
			if !s.firstToken.Before(r.Last) {
				t.Errorf("first token read %v after it was written, the end %v after it: the gzip stream was not flushed per event",
					s.firstToken.Sub(r.FirstToken), r.Last.Sub(r.FirstToken))
			}
			if r.Fault != FaultGzipUnasked || r.OutputTokens != 6 || r.Finish != "stop" {
				t.Errorf("truth %+v", r)
			}
		})
	}
}
