package sample

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrorKind names the class of a failed request. Kinds are counted per run
// and reported by name, so they are stable strings, not numbers.
type ErrorKind string

// The error kinds. A timeout is split by phase because each points at a
// different fault: no headers (queueing, overload), idle between chunks (a
// stalled decode), whole request (too long an answer for the budget).
const (
	KindNone           ErrorKind = ""
	KindTimeoutHeaders ErrorKind = "timeout_headers"
	KindTimeoutIdle    ErrorKind = "timeout_idle"
	KindTimeoutTotal   ErrorKind = "timeout_total"
	KindConnRefused    ErrorKind = "connection_refused"
	KindConnReset      ErrorKind = "connection_reset"
	KindRateLimited    ErrorKind = "rate_limited"
	KindServerError    ErrorKind = "server_error"
	KindClientError    ErrorKind = "client_error"
	KindAuth           ErrorKind = "auth"
	KindProtocol       ErrorKind = "protocol"
	KindMidstream      ErrorKind = "midstream_error"
	KindTruncated      ErrorKind = "truncated"
	// KindEmptyAnswer: a stream that ended as a success would ([DONE] or a
	// finish_reason) without one answer token — no content, refusal or
	// tool call; reasoning alone is no answer. It is an error, not a
	// success with undefined latencies: as a success it would drop out of
	// the ttft and ttfa percentiles, and an endpoint answering half its
	// requests with nothing would look as fast as one answering all.
	KindEmptyAnswer ErrorKind = "empty_answer"
	// KindContentFilter: the server's content filter ended the answer
	// (finish_reason content_filter, Azure's and OpenAI's), whatever it
	// had sent before. As a success the cut answer would count as a fast,
	// complete one.
	KindContentFilter ErrorKind = "content_filter"
	KindCancelled     ErrorKind = "cancelled"
	KindOther         ErrorKind = "other"
)

// Kinds lists every error kind in report order.
var Kinds = []ErrorKind{
	KindTimeoutHeaders, KindTimeoutIdle, KindTimeoutTotal, KindConnRefused,
	KindConnReset, KindRateLimited, KindServerError, KindClientError, KindAuth,
	KindProtocol, KindMidstream, KindTruncated, KindEmptyAnswer, KindContentFilter,
	KindCancelled, KindOther,
}

// Error makes a kind an error: each kind is its own sentinel for
// errors.Is (errors.Is(err, sample.KindAuth)), and a request's error
// matches its kind.
func (k ErrorKind) Error() string { return string(k) }

// Sentinels by their usual names: the kinds themselves, as errors.
// ErrTimeout matches all three timeout kinds.
var (
	ErrTimeout              = errors.New("timeout")
	ErrTimeoutHeaders error = KindTimeoutHeaders
	ErrTimeoutIdle    error = KindTimeoutIdle
	ErrTimeoutTotal   error = KindTimeoutTotal
	ErrConnRefused    error = KindConnRefused
	ErrConnReset      error = KindConnReset
	ErrRateLimited    error = KindRateLimited
	ErrServerError    error = KindServerError
	ErrClientError    error = KindClientError
	ErrAuth           error = KindAuth
	ErrProtocol       error = KindProtocol
	ErrMidstream      error = KindMidstream
	ErrTruncated      error = KindTruncated
	ErrEmptyAnswer    error = KindEmptyAnswer
	ErrContentFilter  error = KindContentFilter
	ErrCancelled      error = KindCancelled
)

// RequestError is the error of one failed request: its kind, the HTTP status
// when there was one, and what the server said (cut short, never the request
// headers, so an API key cannot leak through it).
type RequestError struct {
	Kind       ErrorKind
	Status     int
	Message    string
	RetryAfter string      // Retry-After of a 429, verbatim
	RateLimit  http.Header // x-ratelimit-* headers of a 429
	Err        error       // the underlying cause, if any
}

func (e *RequestError) Error() string {
	s := string(e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil && e.Message == "" {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *RequestError) Unwrap() error { return e.Err }

// Is matches the sentinel of the error's kind, and ErrTimeout for any timeout.
func (e *RequestError) Is(target error) bool {
	if target == ErrTimeout {
		return e.Kind == KindTimeoutHeaders || e.Kind == KindTimeoutIdle || e.Kind == KindTimeoutTotal
	}
	k, ok := target.(ErrorKind)
	return ok && k != KindNone && k == e.Kind
}

// KindOf returns the kind of err: KindNone for nil, KindOther for an error
// that is not a *RequestError.
func KindOf(err error) ErrorKind {
	if err == nil {
		return KindNone
	}
	var re *RequestError
	if errors.As(err, &re) {
		return re.Kind
	}
	return KindOther
}

// Fail marks the sample failed with err: its kind, its message, and the
// Retry-After of a 429.
func (s *Sample) Fail(err error) {
	k := KindOf(err)
	s.ErrKind = k
	s.Finish = string(k)
	s.Err = err.Error()
	var re *RequestError
	if errors.As(err, &re) {
		s.RetryAfter = re.RetryAfter
		for k, v := range re.RateLimit {
			if len(v) > 0 {
				if s.RateLimit == nil {
					s.RateLimit = map[string]string{}
				}
				s.RateLimit[strings.ToLower(k)] = v[0]
			}
		}
	}
}

// Error returns the failure of a measured sample as an error that
// errors.Is matches against the sentinels (ErrTimeout, ErrRateLimited, …),
// or nil when the request succeeded. It works as well on a sample read back
// from a file, whose cause is only its kind and message.
func (s *Sample) Error() error {
	if s.ErrKind == KindNone {
		return nil
	}
	return &sampleError{kind: s.ErrKind, msg: s.Err}
}

// sampleError is a recorded failure: its message as recorded (kind first),
// matching the sentinels of its kind as a RequestError does.
type sampleError struct {
	kind ErrorKind
	msg  string
}

func (e *sampleError) Error() string { return e.msg }

func (e *sampleError) Is(target error) bool { return (&RequestError{Kind: e.kind}).Is(target) }
