package harness

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// fail marks the sample failed with err.
func (s *Sample) fail(err error) {
	k := KindOf(err)
	s.ErrKind = k
	s.Finish = string(k)
	s.Err = err.Error()
	var re *RequestError
	if errors.As(err, &re) {
		s.RetryAfter = re.RetryAfter
	}
}

// classify names the kind of a transport or read error.
func classify(ctx, parent context.Context, err error) error {
	if ctx.Err() != nil {
		switch cause := context.Cause(ctx); {
		case cause == errNoHeaders:
			return &RequestError{Kind: KindTimeoutHeaders, Message: cause.Error()}
		case cause == errIdle:
			return &RequestError{Kind: KindTimeoutIdle, Message: cause.Error()}
		case cause == errTooLong:
			return &RequestError{Kind: KindTimeoutTotal, Message: cause.Error()}
		case errors.Is(parent.Err(), context.DeadlineExceeded):
			return &RequestError{Kind: KindTimeoutTotal, Message: "run deadline", Err: parent.Err()}
		default:
			return &RequestError{Kind: KindCancelled, Err: context.Cause(parent)}
		}
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &RequestError{Kind: KindConnRefused, Err: err}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return &RequestError{Kind: KindConnReset, Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &RequestError{Kind: KindTruncated, Message: "connection closed mid-response", Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &RequestError{Kind: KindTimeoutTotal, Err: err}
	}
	return &RequestError{Kind: KindOther, Err: err}
}

// statusError reads a non-200 response into a RequestError.
func statusError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	e := &RequestError{Status: resp.StatusCode, Message: errorMessage(b)}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Kind = KindAuth
	case code == http.StatusTooManyRequests:
		e.Kind = KindRateLimited
		e.RetryAfter = resp.Header.Get("Retry-After")
		e.RateLimit = http.Header{}
		for k, v := range resp.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-ratelimit-") {
				e.RateLimit[k] = v
			}
		}
	case code >= 500:
		e.Kind = KindServerError
	case code >= 400:
		e.Kind = KindClientError
	default:
		e.Kind = KindProtocol
		e.Message = "unexpected status: " + e.Message
	}
	return e
}

// errorMessage pulls the message out of an error body: OpenAI's
// {"error":{"message":…}}, {"error":"…"}, vLLM's {"message":…}, or else the
// text with HTML tags dropped.
func errorMessage(b []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(b, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var str string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return truncate(inner.Message, 200)
		case json.Unmarshal(v.Error, &str) == nil && str != "":
			return truncate(str, 200)
		case v.Message != "":
			return truncate(v.Message, 200)
		}
	}
	return truncate(strings.Join(strings.Fields(stripTags(string(b))), " "), 200)
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
