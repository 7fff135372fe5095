package stream

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
)

// refEvent is an event as the SSE spec dispatches it.
type refEvent struct {
	typ  string
	data string
}

// refParse is a reference reader of an event stream, written from the
// spec (html.spec.whatwg.org, "Event stream interpretation") and nothing
// else: a leading BOM is dropped; lines end at CRLF, LF or CR; a blank
// line dispatches the event if its data buffer is not empty (its last LF
// removed); ":" starts a comment; "field: value" loses one space after the
// colon; a line without a colon is a field with an empty value; data
// appends value+LF, event sets the type; id, retry and others do not
// matter here. What follows the last line end is not a line, and an event
// without its blank line at the end of the stream is not dispatched.
func refParse(body string) []refEvent {
	body = strings.TrimPrefix(body, "\ufeff")
	var lines []string
	for {
		i := strings.IndexAny(body, "\r\n")
		if i < 0 {
			break // no line end: not a line
		}
		lines = append(lines, body[:i])
		if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
			i++
		}
		body = body[i+1:]
	}
	var out []refEvent
	var data strings.Builder
	typ := ""
	for _, line := range lines {
		switch {
		case line == "":
			if data.Len() > 0 {
				out = append(out, refEvent{typ, strings.TrimSuffix(data.String(), "\n")})
			}
			data.Reset()
			typ = ""
			continue
		case line[0] == ':':
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "data":
			data.WriteString(value + "\n")
		case "event":
			typ = value
		}
	}
	return out
}

// refOutcome is what llmsla should report for the events, by METRICS.md:
// an "error" event or a chunk with an error is midstream_error, data that
// is not JSON is protocol, [DONE] or a finish_reason ends well, anything
// else is truncated, and a good end with no answer token is empty_answer.
type refOutcome struct {
	kind    sample.ErrorKind
	content string
	chunks  int
	finish  string
}

func refOutcomeOf(events []refEvent) refOutcome {
	var o refOutcome
	answers, done := 0, false
	present := func(raw json.RawMessage) bool {
		s := string(raw)
		return s != "" && s != "null" && s != "[]" && s != "{}"
	}
events:
	for _, ev := range events {
		if ev.typ == "error" {
			return refOutcome{kind: sample.KindMidstream}
		}
		data := strings.TrimSpace(ev.data)
		switch data {
		case "":
			continue
		case "[DONE]":
			done = true
			break events
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return refOutcome{kind: sample.KindProtocol}
		}
		if (len(c.Error) > 0 && string(c.Error) != "null") || c.Object == "error" {
			return refOutcome{kind: sample.KindMidstream}
		}
		for _, ch := range c.Choices {
			d := ch.Delta
			answer := d.Content != "" || d.Refusal != "" || present(d.ToolCalls) || present(d.FunctionCall)
			if answer || d.ReasoningContent != "" || d.Reasoning != "" {
				o.chunks++
			}
			if answer {
				answers++
			}
			o.content += d.Content
			if ch.FinishReason != "" {
				o.finish = string(ch.FinishReason)
			}
		}
	}
	switch {
	case !done && o.finish == "":
		return refOutcome{kind: sample.KindTruncated}
	case answers == 0:
		return refOutcome{kind: sample.KindEmptyAnswer}
	}
	return o
}

// fuzzServer serves the body a fuzz run gives it (runs in one process are
// sequential), in two writes cut where the run says, so that reads end
// anywhere: between a CR and its LF, inside a BOM, inside a line.
type fuzzServer struct {
	body   atomic.Pointer[[2][]byte]
	client *Client
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
	return fs
}

func (fs *fuzzServer) do(body []byte, cut uint16) sample.Sample {
	at := 0
	if len(body) > 0 {
		at = int(cut) % (len(body) + 1)
	}
	fs.body.Store(&[2][]byte{body[:at], body[at:]})
	return fs.client.Do(context.Background(), helloRequest)
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
	} {
		for _, cut := range []uint16{0, 7, 100} {
			f.Add([]byte(body), cut)
		}
	}
	fs := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		if len(body) > 64<<10 {
			return
		}
		want := refOutcomeOf(refParse(string(body)))
		s := fs.do(body, cut)
		if s.ErrKind != want.kind {
			t.Fatalf("%q: kind %q (%s), reference %q", body, s.ErrKind, s.Err, want.kind)
		}
		if want.kind != sample.KindNone {
			return
		}
		if s.Content != want.content || s.Chunks != want.chunks || s.Finish != want.finish {
			t.Fatalf("%q: content %q chunks %d finish %q, reference %q %d %q", body, s.Content, s.Chunks, s.Finish, want.content, want.chunks, want.finish)
		}
	})
}

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
