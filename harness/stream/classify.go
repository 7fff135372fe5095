package stream

import (
	"github.com/llmsla/llmsla/harness/sample"

	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// classify names the kind of a transport or read error.
func classify(ctx, parent context.Context, err error) error {
	if ctx.Err() != nil {
		switch cause := context.Cause(ctx); {
		case cause == errNoHeaders:
			return &sample.RequestError{Kind: sample.KindTimeoutHeaders, Message: cause.Error()}
		case cause == errIdle:
			return &sample.RequestError{Kind: sample.KindTimeoutIdle, Message: cause.Error()}
		case cause == errTooLong:
			return &sample.RequestError{Kind: sample.KindTimeoutTotal, Message: cause.Error()}
		case errors.Is(parent.Err(), context.DeadlineExceeded):
			return &sample.RequestError{Kind: sample.KindTimeoutTotal, Message: "run deadline", Err: parent.Err()}
		default:
			return &sample.RequestError{Kind: sample.KindCancelled, Err: context.Cause(parent)}
		}
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &sample.RequestError{Kind: sample.KindConnRefused, Err: err}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return &sample.RequestError{Kind: sample.KindConnReset, Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &sample.RequestError{Kind: sample.KindTruncated, Message: "connection closed mid-response", Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &sample.RequestError{Kind: sample.KindTimeoutTotal, Err: err}
	}
	return &sample.RequestError{Kind: sample.KindOther, Err: err}
}

// statusError reads a non-200 response into a sample.RequestError.
func statusError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	e := &sample.RequestError{Status: resp.StatusCode, Message: errorMessage(b)}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Kind = sample.KindAuth
	case code == http.StatusTooManyRequests:
		e.Kind = sample.KindRateLimited
		e.RetryAfter = resp.Header.Get("Retry-After")
		e.RateLimit = http.Header{}
		for k, v := range resp.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-ratelimit-") {
				e.RateLimit[k] = v
			}
		}
	case code >= 500:
		e.Kind = sample.KindServerError
	case code >= 400:
		e.Kind = sample.KindClientError
	default:
		e.Kind = sample.KindProtocol
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

// truncate cuts s for display in an error or report.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
