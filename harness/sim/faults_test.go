package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// faultResult is what a raw client saw of one faulty request.
type faultResult struct {
	resp *http.Response
	err  error  // from Do
	body string // a non-SSE body
	evs  []event
	tail string // an unterminated last line
	end  error  // what ended the body
	tr   Truth
}

func TestFaults(t *testing.T) {
	type check func(t *testing.T, r faultResult)
	status := func(code int, ctype string, says ...string) check {
		return func(t *testing.T, r faultResult) {
			if r.err != nil {
				t.Fatal(r.err)
			}
			body := r.body
			if r.resp.StatusCode != code || !strings.HasPrefix(r.resp.Header.Get("Content-Type"), ctype) {
				t.Errorf("status %d %q, want %d %q", r.resp.StatusCode, r.resp.Header.Get("Content-Type"), code, ctype)
			}
			if ctype == "application/json" && !json.Valid([]byte(body)) {
				t.Errorf("body %q is not JSON", body)
			}
			for _, s := range says {
				if !strings.Contains(body, s) {
					t.Errorf("body %q lacks %q", body, s)
				}
			}
			if r.tr.Status != code || r.tr.Headers.IsZero() || (code != 200) != (r.tr.OutputTokens == 0) {
				t.Errorf("truth %+v", r.tr)
			}
		}
	}
	// cut checks the few tokens before a mid-stream fault, then the rest.
	cut := func(lastData string, end func(error) bool) check {
		return func(t *testing.T, r faultResult) {
			if r.err != nil {
				t.Fatal(r.err)
			}
			evs := r.evs
			if lastData != "" {
				if n := len(evs); n == 0 || evs[n-1].data != lastData {
					t.Fatalf("last event %v, want data %q", evs[max(n-1, 0):], lastData)
				}
				evs = evs[:len(evs)-1]
			}
			s := summarize(t, evs)
			if s.tokens != fewTokens || r.tr.OutputTokens != fewTokens || s.finish != "" || s.done {
				t.Errorf("tokens %d (truth %d), finish %q, done %v; want %d, none, false",
					s.tokens, r.tr.OutputTokens, s.finish, s.done, fewTokens)
			}
			if !end(r.end) {
				t.Errorf("body ended with %v", r.end)
			}
		}
	}
	cleanEOF := func(err error) bool { return err == io.EOF }
	timedOut := func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }
	unexpectedEOF := func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }
	// half checks the few tokens, then a data line cut inside its JSON.
	half := func(end func(error) bool) check {
		return func(t *testing.T, r faultResult) {
			cut("", end)(t, r)
			json, ok := strings.CutPrefix(r.tail, `data: {"id":"`+r.tr.ID)
			if !ok || strings.ContainsAny(r.tail, "\r\n") || strings.Contains(json, "ping") || strings.HasSuffix(json, "}") {
				t.Errorf("tail %q, want half a data line and nothing after it", r.tail)
			}
		}
	}
	const overloaded = `{"error":{"message":"overloaded","type":"server_error","param":null,"code":null}}`

	cases := map[string]struct {
		cfg     func(*Config)
		timeout time.Duration
		check   check
	}{
		FaultTimeoutHeaders: {timeout: 80 * time.Millisecond, check: func(t *testing.T, r faultResult) {
			if !errors.Is(r.err, context.DeadlineExceeded) || !r.tr.Headers.IsZero() {
				t.Errorf("err %v, headers at %v; want a deadline before any header", r.err, r.tr.Headers)
			}
		}},
		FaultTimeoutIdle: {timeout: 100 * time.Millisecond, check: cut("", timedOut)},
		FaultTimeoutTotal: {timeout: 100 * time.Millisecond, check: func(t *testing.T, r faultResult) {
			s := summarize(t, r.evs)
			if !timedOut(r.end) || s.tokens < 20 || s.finish != "" {
				t.Errorf("ended %v after %d tokens, finish %q; want a deadline after many", r.end, s.tokens, s.finish)
			}
			for i := 2; i < len(r.evs); i++ {
				if gap := r.evs[i].at.Sub(r.evs[i-1].at); gap > 25*time.Millisecond {
					t.Errorf("idle %v between events %d and %d; the stream must stay busy", gap, i-1, i)
				}
			}
		}},
		FaultConnectionReset: {check: func(t *testing.T, r faultResult) {
			if !errors.Is(r.err, syscall.ECONNRESET) || r.tr.Status != 0 {
				t.Errorf("err %v, status %d; want ECONNRESET and no status", r.err, r.tr.Status)
			}
		}},
		FaultRateLimited: {check: func(t *testing.T, r faultResult) {
			h := r.resp.Header
			if h.Get("Retry-After") != "2" || h.Get("X-Ratelimit-Remaining-Requests") != "0" ||
				h.Get("X-Ratelimit-Limit-Requests") == "" || h.Get("X-Ratelimit-Reset-Requests") == "" {
				t.Errorf("headers %v", h)
			}
			status(429, "application/json", "rate_limit_exceeded")(t, r)
		}},
		FaultServerError:          {check: status(503, "text/html", "<html>", "Service Unavailable")},
		FaultServerErrorJSON:      {check: status(500, "application/json", `"server_error"`)},
		FaultClientError:          {check: status(400, "application/json", `"invalid_request_error"`)},
		FaultAuth:                 {check: status(401, "application/json", "invalid_api_key")},
		FaultProtocolContentType:  {check: status(200, "application/json", `"chat.completion"`)},
		FaultProtocolBadChunk:     {check: cut("{not json", cleanEOF)},
		FaultMidstreamError:       {check: cut(overloaded, cleanEOF)},
		FaultMidstreamErrorSpaced: {check: cut(`{ "error": { "message": "overloaded", "type": "server_error" } }`, cleanEOF)},
		FaultMidstreamErrorVLLM: {check: cut(`{"object":"error","message":"overloaded",`+
			`"type":"InternalServerError","param":null,"code":500}`, cleanEOF)},
		FaultTruncated:      {check: cut("", cleanEOF)},
		FaultTruncatedAbort: {check: cut("", unexpectedEOF)},
		FaultMidstreamErrorEvent: {check: func(t *testing.T, r faultResult) {
			cut(overloaded, cleanEOF)(t, r)
			if n := len(r.evs); n == 0 || r.evs[n-1].name != "error" {
				t.Errorf("the error event is not named \"error\"")
			}
		}},
		FaultTruncatedMidline: {check: half(cleanEOF)},
		FaultResetMidline:     {check: half(func(err error) bool { return errors.Is(err, syscall.ECONNRESET) })},
		// Pings every 10 ms would show inside the cut line if they went out.
		FaultStallMidline: {cfg: func(c *Config) { c.KeepAlive = 10 * time.Millisecond },
			timeout: 100 * time.Millisecond, check: half(timedOut)},
		FaultAbortMidline: {check: half(unexpectedEOF)},
		FaultEmptyAnswer: {cfg: func(c *Config) { c.RoleChunk = false }, check: func(t *testing.T, r faultResult) {
			s := summarize(t, r.evs)
			if r.resp.StatusCode != 200 || s.tokens != 0 || s.roleOnly != 1 || s.finish != "stop" ||
				s.usage != 0 || !s.done || r.end != io.EOF {
				t.Errorf("status %d, %d tokens, %d role chunks, finish %q, usage %d, [DONE] %v, end %v; "+
					"want 200, 0, 1, stop, 0, true, EOF", r.resp.StatusCode, s.tokens, s.roleOnly, s.finish, s.usage, s.done, r.end)
			}
			tr := r.tr
			if tr.OutputTokens != 0 || !tr.FirstToken.IsZero() || tr.Finish != "stop" || tr.Answer != "" ||
				tr.Last.Sub(tr.Received) < tr.TTFTDelay {
				t.Errorf("truth %+v; want no token, finish stop, the end after the TTFT delay", tr)
			}
		}},
		FaultEchoError: {check: status(400, "application/json", "unsupported_parameter", "Request as received: echo")},
	}
	ownTest := map[string]bool{FaultProtocolLongLine: true, FaultGzipUnasked: true, FaultFlood: true}
	for _, kind := range FaultKinds {
		if _, ok := cases[kind]; !ok && !ownTest[kind] {
			t.Errorf("no case for fault %s", kind)
		}
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := fast()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			srv, url := Start(t, cfg)
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(streamBody))
			req.Header.Set(FaultHeader, name)
			var r faultResult
			r.resp, r.err = http.DefaultClient.Do(req)
			if r.err == nil && r.resp.Header.Get("Content-Type") == "text/event-stream" {
				r.evs, r.tail, r.end = readSSETail(t, r.resp.Body, "\n")
				r.resp.Body.Close()
				if r.tail != "" && !strings.HasSuffix(name, "_midline") {
					t.Errorf("unterminated line %.60q", r.tail)
				}
			} else if r.err == nil {
				r.body = rawBody(t, r.resp, 1<<20)
			}
			cancel()
			if !srv.WaitIdle(2 * time.Second) {
				t.Fatalf("handler still running after the client left")
			}
			r.tr = srv.Truth()[0]
			if r.tr.Fault != name || !r.tr.Done {
				t.Errorf("truth fault %q done %v, want %q true", r.tr.Fault, r.tr.Done, name)
			}
			tc.check(t, r)
		})
	}
}

func TestFaultLongLine(t *testing.T) {
	srv, url := Start(t, fast())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(streamBody))
	req.Header.Set(FaultHeader, FaultProtocolLongLine)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	role, _ := bytesUntil(resp.Body, "\n\n")
	if !strings.HasPrefix(role, `data: {"id"`) {
		t.Fatalf("first event %q, want the role chunk", role)
	}
	buf := make([]byte, 2<<20+len("data: "))
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf, []byte("data: xxx")) || bytes.ContainsAny(buf, "\r\n") {
		t.Errorf("long line is not one unterminated 2 MiB data line")
	}
	// Nothing more comes until the client leaves.
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, resp.Body); close(done) }()
	select {
	case <-done:
		t.Fatal("the server ended the long line")
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	<-done
	if !srv.WaitIdle(2 * time.Second) {
		t.Fatal("handler still running after the client left")
	}
}

// bytesUntil reads one byte at a time up to and including sep, so nothing
// past it is consumed.
func bytesUntil(r io.Reader, sep string) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for !bytes.HasSuffix(b, []byte(sep)) {
		if _, err := r.Read(one); err != nil {
			return string(b), err
		}
		b = append(b, one[0])
	}
	return string(b), nil
}

func TestNonStreamFaults(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	unexpectedEOF := func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }
	timedOut := func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }
	cases := map[string]struct {
		ctype string
		end   func(error) bool
		says  string // in the body
	}{
		FaultTruncated:           {ctype: "application/json", end: unexpectedEOF},
		FaultMidstreamError:      {ctype: "application/json", end: unexpectedEOF},
		FaultTimeoutIdle:         {ctype: "application/json", end: timedOut},
		FaultProtocolContentType: {ctype: "text/event-stream", end: func(err error) bool { return err == nil }},
		FaultAbortMidline:        {ctype: "application/json", end: unexpectedEOF},
		FaultResetMidline:        {ctype: "application/json", end: func(err error) bool { return errors.Is(err, syscall.ECONNRESET) }},
		FaultStallMidline:        {ctype: "application/json", end: timedOut},
		FaultEmptyAnswer: {ctype: "application/json", end: func(err error) bool { return err == nil },
			says: `"completion_tokens":0`},
	}
	// Pings belong to event streams: in a JSON body they would corrupt it.
	cfg := fast()
	cfg.KeepAlive = 20 * time.Millisecond
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, url := Start(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
			req.Header.Set(FaultHeader, name)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.Header.Get("Content-Type") != tc.ctype || !tc.end(err) || !strings.Contains(string(got), tc.says) ||
				(tc.ctype == "application/json" && strings.Contains(string(got), ": ping")) {
				t.Errorf("content type %q, body ended with %v: %.200q", resp.Header.Get("Content-Type"), err, got)
			}
			cancel()
			if !srv.WaitIdle(2 * time.Second) {
				t.Fatal("handler still running after the client left")
			}
		})
	}
}

func TestClosedAddr(t *testing.T) {
	_, err := net.DialTimeout("tcp", ClosedAddr(t), time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial error %v, want ECONNREFUSED", err)
	}
}
