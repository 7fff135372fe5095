package stream

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
)

// fuzzServer serves the body a fuzz run gives it (runs in one process are
// sequential), in two writes cut where the run says, so that reads end
// anywhere: between a CR and its LF, inside a BOM, inside a line.
type fuzzServer struct {
	body   atomic.Pointer[[2][]byte]
	client *Client // through net/http
	lean   *Client // over the lean path, read directly (h1raw_linux.go) where it is taken
}

func newFuzzServer(tb testing.TB) *fuzzServer {
	fs := &fuzzServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, p := range fs.body.Load() {
			w.Write(p)
			w.(http.Flusher).Flush()
		}
	}))
	tb.Cleanup(srv.Close)
	// Connections close with a reset, not in TIME_WAIT: a fuzz run opens
	// tens of thousands, and would run out of ports.
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		return c, err
	}
	fs.client = NewClient(Endpoint{Name: "fuzz", BaseURL: srv.URL + "/v1", Model: "m"},
		HTTPClient(&http.Client{Transport: &http.Transport{DialContext: dial, DisableCompression: true}}))
	tb.Cleanup(fs.client.CloseIdle)
	fs.lean = NewClient(Endpoint{Name: "fuzz", BaseURL: srv.URL + "/v1", Model: "m"})
	if fs.lean.h1 != nil {
		fs.lean.h1.dial = dial
	}
	tb.Cleanup(fs.lean.CloseIdle)
	return fs
}

func (fs *fuzzServer) do(body []byte, cut uint16) sample.Sample {
	return fs.doWith(fs.client, body, cut)
}

func (fs *fuzzServer) doWith(c *Client, body []byte, cut uint16) sample.Sample {
	at := 0
	if len(body) > 0 {
		at = int(cut) % (len(body) + 1)
	}
	fs.body.Store(&[2][]byte{body[:at], body[at:]})
	return c.Do(context.Background(), helloRequest)
}

// FuzzSSE sends any body as an event stream through the whole client —
// HTTP, line reader, event assembly, decoding, the end-of-stream verdict
// — and checks it against the reference reader above.
//
//	go test -run '^$' -fuzz FuzzSSE -fuzztime 60s ./harness/stream/
func FuzzSSE(f *testing.F) {
	multi := "data: {\"choices\":[{\"delta\":\n" + `data: {"content":"Hel"}}]}` + "\n\n"
	for _, body := range []string{
		role + tokA + tokB + stop + usage + done,
		strings.ReplaceAll(tokA+tokB+stop+done, "\n", "\r\n"),
		strings.ReplaceAll(tokA+tokB+stop+done, "\n", "\r"),
		"\ufeff" + tokA + stop + done,
		multi + stop + done,
		": ping\n\nid: 1\nretry: 5\nevent: message\n" + tokA + "data\n\n" + stop + done,
		tokA + "event: error\ndata: {\"message\":\"boom\"}\n\n",
		tokA + "event: error\n\n" + tokB + stop + done,
		tokA + `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"lo"}`,
		tokA + stop + "data: [DONE]\n",
		tokA + "data: [DONE]\n",
		tokA + "data: [DONE]",
		think + stop + done,
		done,
		tool + stop + done,
		tokA + "data: {\"error\":null}\n\n" + stop + done,
		"data:" + tokA[5:] + "data :x\n\n" + stop + done,
		// Content parts, tool-call deltas of each framing, the endings and
		// usage figures of the vendor shapes.
		`data: {"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hm"}]}]}}]}` + "\n\n" +
			`data: {"choices":[{"delta":{"content":[{"type":"text","text":"Hi"},{"type":"thinking","thinking":"x"}]}}]}` + "\n\n" + stop + done,
		toolFrag(`{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":""}}`) + toolFrag(`{"index":0,"function":{"arguments":"{\"a\""}}`) +
			toolFrag(`{"index":0,"function":{"arguments":":1}"}}`) + toolFrag(`{"index":0,"function":{"arguments":""}}`) + toolsDone + usage + done,
		toolFrag(`{"id":"c1","function":{"name":"f","arguments":"{}"}},{"id":"c2","function":{"name":"f","arguments":"{}"}}`) +
			toolFrag(`{"function":{"name":"g","arguments":"{}"}},{"function":{"name":"g"}},{"function":{"arguments":"x"}}`) + toolsDone + done,
		toolFrag(`{"index":0,"id":"a","function":{"name":"f","arguments":"1"}},{"index":0,"id":"b","function":{"name":"g","arguments":"2"}},{"index":0,"function":{"arguments":"3"}}`) + done,
		`data: {"choices":[{"delta":{"tool_calls":{"index":0,"id":"","function":{"name":null,"arguments":"{"}}}}]}` + "\n\n" + done,
		`data: {"choices":[{"delta":{"function_call":{"name":"f","arguments":""}}}]}` + "\n\n" +
			`data: {"choices":[{"delta":{"function_call":{"arguments":"{}"}},"finish_reason":"function_call"}]}` + "\n\n" + done,
		tokA + `data: {"choices":[{"delta":{},"finish_reason":"content_filter"}]}` + "\n\n" + done,
		tokA + `data: {"choices":[],"x_groq":{"id":"r","error":"stopped"}}` + "\n\n" + done,
		tokA + stop + `data: {"choices":[],"x_groq":{"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":9}}}` + "\n\n" + done,
		tokA + stop + `data: {"choices":[],"timings":{"cache_n":4},"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6,"prompt_tokens_details":{"cached_tokens":6}}}` + "\n\n" + done,
		tokA + stop + `data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":-1,"total_tokens":4}}` + "\n\n" + done,
		tokA + stop + `data: {"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":1,"total_tokens":51,"prompt_cache_hit_tokens":48}}` + "\n\n" + done,
	} {
		for _, cut := range []uint16{0, 7, 100} {
			f.Add([]byte(body), cut)
		}
	}
	for name := range vendorShapes {
		body := strings.Join(readVendorStream(f, name).blocks, "")
		f.Add([]byte(body), uint16(len(body)/2))
	}
	fs := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		if len(body) > 64<<10 {
			return
		}
		want := refOutcomeOf(refParse(string(body)))
		for _, c := range []*Client{fs.client, fs.lean} {
			s := fs.doWith(c, body, cut)
			path := "net/http"
			if c.h1 != nil {
				path = "lean path"
			}
			if s.ErrKind != want.kind {
				t.Fatalf("%s: %q: kind %q (%s), reference %q", path, body, s.ErrKind, s.Err, want.kind)
			}
			if want.kind != sample.KindNone {
				continue
			}
			got := refOutcome{kind: s.ErrKind, content: s.Content, chunks: s.Chunks, finish: s.Finish,
				output: s.OutputTokens, reasoning: s.ReasoningTokens, source: s.TokenSource, cached: s.CachedTokens,
				calls: s.ToolCalls, callsCut: s.ToolCallsCut, toolToken: s.TTFTool > 0}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %q:\nclient    %+v\nreference %+v", path, body, got, want)
			}
			if (s.ToolDone > 0) != (len(s.ToolCalls) > 0) {
				t.Fatalf("%s: %q: tool_done %v with %d tool calls", path, body, s.ToolDone, len(s.ToolCalls))
			}
		}
	})
}

// toolFrag is an event with a delta of tool calls (a JSON array's elements).
func toolFrag(calls string) string {
	return `data: {"choices":[{"delta":{"tool_calls":[` + calls + `]}}]}` + "\n\n"
}

const toolsDone = `data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n"

// TestRefParse checks the reference itself on the spec's own examples.
func TestRefParse(t *testing.T) {
	cases := map[string][]refEvent{
		"data: YHOO\ndata: +2\ndata: 10\n\n": {{"", "YHOO\n+2\n10"}},
		": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n": {{"", "first event"}, {"", "second event"}},
		"data\n\ndata\ndata\n\ndata:":             {{"", ""}, {"", "\n"}},
		"data:test\n\ndata: test\n\n":             {{"", "test"}, {"", "test"}},
		"event: add\ndata: 73857293\n\n":          {{"add", "73857293"}},
		"\ufeffdata: a\r\ndata: b\rdata: c\n\r\n": {{"", "a\nb\nc"}},
	}
	for in, want := range cases {
		got := refParse(in)
		if len(got) != len(want) {
			t.Errorf("%q: %q, want %q", in, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%q: %q, want %q", in, got, want)
			}
		}
	}
}
