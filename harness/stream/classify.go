package stream

import (
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"

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

// statusOverloaded is Anthropic's 529 overloaded_error
// (docs.anthropic.com/en/api/errors): the server's capacity, not the
// request, counted with the rate limits.
const statusOverloaded = 529

// errorBodyLimit bounds how much of an error body is read.
const errorBodyLimit = 4 << 10

// statusError reads a non-200 response into a sample.RequestError, its
// message redacted of sec and then cut.
func statusError(resp *http.Response, sec *secret.Set) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit+1))
	cut := len(b) > errorBodyLimit
	if cut {
		b = b[:errorBodyLimit]
	}
	e := &sample.RequestError{Status: resp.StatusCode, Message: errorMessage(b, sec, cut)}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Kind = sample.KindAuth
	case code == http.StatusTooManyRequests || code == statusOverloaded:
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

// maxMessage is how much of a server's error message a sample keeps.
const maxMessage = 200

// errorMessage pulls the message out of an error body: OpenAI's
// {"error":{"message":…}}, {"error":"…"}, vLLM's {"message":…}, or else the
// text with HTML tags dropped. Secrets are redacted before the message is
// cut to maxMessage; cut says the body itself was cut short, so that what
// is left of a secret at its end goes too.
func errorMessage(b []byte, sec *secret.Set, cut bool) string {
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
			return sec.Cut(inner.Message, maxMessage)
		case json.Unmarshal(v.Error, &str) == nil && str != "":
			return sec.Cut(str, maxMessage)
		case v.Message != "":
			return sec.Cut(v.Message, maxMessage)
		}
	}
	return quote(sec, []byte(strings.Join(strings.Fields(stripTags(string(b))), " ")), maxMessage, cut)
}

// quote is server text for an error message: redacted, then cut to n
// bytes; cut says the text was already cut short where it ends.
func quote(sec *secret.Set, b []byte, n int, cut bool) string {
	text := sec.Redact(string(b))
	if cut {
		text = sec.TrimPartial(text)
	}
	return sec.Cut(text, n)
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
