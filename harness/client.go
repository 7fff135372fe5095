package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Endpoint is an OpenAI-compatible server and the model to ask. APIKey is
// resolved from the environment by the config loader and never printed:
// Endpoint has a String method that leaves it out.
type Endpoint struct {
	Name     string
	BaseURL  string // up to and including /v1
	Model    string
	APIKey   string
	Headers  map[string]string
	Timeouts Timeouts
	// Simulated marks the built-in simulator, so every report can say so.
	Simulated bool
	// Kind is "openai" (default) or "ollama" (enables the native-timing
	// breakdown).
	Kind string
	// KeyEnv names the environment variable the API key is read from.
	KeyEnv string
}

func (e Endpoint) String() string {
	return fmt.Sprintf("%s (%s, model %s)", e.Name, RedactURL(e.BaseURL), e.Model)
}

// RedactURL drops what may hold a secret (user info, query) from a URL.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// Timeouts bound one request. Zero means no limit.
type Timeouts struct {
	Headers time.Duration // t0 → response headers
	Idle    time.Duration // between two lines of the stream
	Total   time.Duration // t0 → end of stream
}

// DefaultTimeouts are generous: a timeout is an error, and errors should be
// the endpoint's doing, not the harness's.
var DefaultTimeouts = Timeouts{Headers: 60 * time.Second, Idle: 30 * time.Second, Total: 5 * time.Minute}

// Request is one chat completion to send. Temperature is a pointer because
// zero is a meaningful value that go-openai's omitempty would drop.
type Request struct {
	Messages       []openai.ChatCompletionMessage
	MaxTokens      int
	Temperature    *float32
	Seed           *int
	ResponseFormat *openai.ChatCompletionResponseFormat
}

// wireRequest adds to go-openai's request what it cannot say: an explicit
// temperature of 0. The outer field shadows the embedded one in encoding/json.
type wireRequest struct {
	openai.ChatCompletionRequest
	Temperature *float32 `json:"temperature,omitempty"`
}

// Client sends timed streaming requests to one endpoint.
type Client struct {
	ep         Endpoint
	url        string
	http       *http.Client
	maxLine    int
	maxContent int
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// MaxLine bounds one SSE line; a longer one is a protocol error, so that a
// broken server cannot make the harness buffer without bound.
func MaxLine(n int) ClientOption { return func(c *Client) { c.maxLine = n } }

// MaxContent bounds the answer text kept for quality checks.
func MaxContent(n int) ClientOption { return func(c *Client) { c.maxContent = n } }

// HTTPClient replaces the HTTP client (its transport), e.g. for tests.
func HTTPClient(h *http.Client) ClientOption { return func(c *Client) { c.http = h } }

// NewClient returns a client for ep. Its transport keeps enough idle
// connections for high concurrency, and does not ask for gzip, which would
// let a proxy buffer the stream.
func NewClient(ep Endpoint, opts ...ClientOption) *Client {
	c := &Client{
		ep:         ep,
		url:        chatURL(ep.BaseURL),
		maxLine:    1 << 20,
		maxContent: 1 << 20,
		http: &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:   true,
			MaxIdleConns:        1024,
			MaxIdleConnsPerHost: 1024,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 30 * time.Second,
			DisableCompression:  true,
		}},
	}
	for _, o := range opts {
		o(c)
	}
	if c.ep.Timeouts == (Timeouts{}) {
		c.ep.Timeouts = DefaultTimeouts
	}
	return c
}

// chatURL appends /chat/completions to the base URL's path, keeping its
// query (Azure's api-version, a gateway's key parameter).
func chatURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return strings.TrimRight(base, "/") + "/chat/completions"
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	u.RawPath = ""
	return u.String()
}

// Endpoint returns the client's endpoint.
func (c *Client) Endpoint() Endpoint { return c.ep }

// CloseIdle closes idle connections, so that a finished run leaves none.
func (c *Client) CloseIdle() { c.http.CloseIdleConnections() }

// Timeout causes, told apart through context.Cause.
var (
	causeHeaders = errors.New("no response headers in time")
	causeIdle    = errors.New("stream idle too long")
	causeTotal   = errors.New("request took too long")
)

// Body serialises req for the endpoint, streaming with usage.
func (c *Client) Body(req Request) ([]byte, error) {
	w := wireRequest{
		ChatCompletionRequest: openai.ChatCompletionRequest{
			Model:          c.ep.Model,
			Messages:       req.Messages,
			MaxTokens:      req.MaxTokens,
			Seed:           req.Seed,
			ResponseFormat: req.ResponseFormat,
			Stream:         true,
			StreamOptions:  &openai.StreamOptions{IncludeUsage: true},
		},
		Temperature: req.Temperature,
	}
	return json.Marshal(w)
}

// Do sends req and times it. It never returns an error: a failure is a
// Sample whose ErrKind says what went wrong, so that a run goes on and counts.
func (c *Client) Do(ctx context.Context, req Request) Sample {
	s := Sample{Endpoint: c.ep.Name, Model: c.ep.Model}
	body, err := c.Body(req)
	if err != nil {
		s.fail(&RequestError{Kind: KindOther, Message: "encoding request", Err: err})
		return s
	}
	c.stream(ctx, body, &s)
	if s.Err != "" {
		s.Err = c.redact(s.Err)
	}
	return s
}

// redact removes secrets from an error message: the API key (a server may
// echo the request back) and the URL's query (Go's transport errors quote the
// URL, and some gateways take their key there).
func (c *Client) redact(msg string) string {
	if c.ep.APIKey != "" {
		msg = strings.ReplaceAll(msg, c.ep.APIKey, "[redacted]")
	}
	if i := strings.IndexByte(c.url, '?'); i >= 0 {
		msg = strings.ReplaceAll(msg, c.url[i+1:], "[redacted]")
	}
	return msg
}

func (c *Client) stream(parent context.Context, body []byte, s *Sample) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	to := c.ep.Timeouts

	var tr phaseTrace
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, tr.trace()), http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		s.fail(&RequestError{Kind: KindOther, Message: "building request", Err: err})
		return
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if c.ep.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.ep.APIKey)
	}
	for k, v := range c.ep.Headers {
		hreq.Header.Set(k, v)
	}

	var headerTimer, totalTimer *time.Timer
	t0 := time.Now()
	s.Start = t0
	if to.Total > 0 {
		totalTimer = time.AfterFunc(to.Total, func() { cancel(causeTotal) })
		defer totalTimer.Stop()
	}
	if to.Headers > 0 {
		headerTimer = time.AfterFunc(to.Headers, func() { cancel(causeHeaders) })
	}
	resp, err := c.http.Do(hreq)
	if headerTimer != nil {
		headerTimer.Stop()
	}
	tr.into(s, t0)
	if err != nil {
		s.Total = time.Since(t0)
		s.fail(classify(ctx, parent, err))
		return
	}
	defer resp.Body.Close()
	s.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		s.Total = time.Since(t0)
		s.fail(statusError(resp))
		return
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		s.Total = time.Since(t0)
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
		s.fail(&RequestError{Kind: KindProtocol, Status: resp.StatusCode,
			Message: fmt.Sprintf("content type %q, want text/event-stream: %s", ct, truncate(string(msg), 120))})
		return
	}

	var idleTimer *time.Timer
	if to.Idle > 0 {
		idleTimer = time.AfterFunc(to.Idle, func() { cancel(causeIdle) })
		defer idleTimer.Stop()
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), c.maxLine)
	st := streamState{s: s, t0: t0, maxContent: c.maxContent}
	for sc.Scan() {
		if idleTimer != nil {
			idleTimer.Reset(to.Idle)
		}
		if st.line(sc.Bytes()) {
			break
		}
	}
	// Fold the error before draining, so that what the drain reads can't
	// change the verdict.
	scanErr := sc.Err()
	if st.done {
		// Let the connection go back to the pool.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	}
	st.finish(ctx, parent, scanErr)
}

// streamState is the per-request state of the SSE loop.
type streamState struct {
	s          *Sample
	t0         time.Time
	last       time.Time // last token-bearing chunk
	content    strings.Builder
	maxContent int
	done       bool // saw [DONE]
	err        error
	usage      bool
}

// chunk is the union of what a chat stream line can carry, errors included
// (OpenAI's {"error":…} in any key order and vLLM's {"object":"error",…}).
// It decodes only what the timing needs: go-openai's full delta type costs
// twice as much per chunk, for fields (tool call contents, logprobs) we only
// need to see as present.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Content          string          `json:"content"`
			ReasoningContent string          `json:"reasoning_content"` // DeepSeek, vLLM
			Reasoning        string          `json:"reasoning"`         // Ollama, vLLM ≥ 0.10
			Refusal          string          `json:"refusal"`
			ToolCalls        json.RawMessage `json:"tool_calls"`
			FunctionCall     json.RawMessage `json:"function_call"`
		} `json:"delta"`
		FinishReason openai.FinishReason `json:"finish_reason"`
	} `json:"choices"`
	Usage   *openai.Usage   `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

var dataPrefix = []byte("data:")

// line handles one line of the stream; it returns true when the stream is
// over (data: [DONE] or an error event).
func (st *streamState) line(b []byte) bool {
	if !bytes.HasPrefix(b, dataPrefix) {
		// Blank lines, comments (": ping"), event:, id:, retry: carry no data.
		return false
	}
	now := time.Now()
	data := bytes.TrimSpace(b[len(dataPrefix):])
	if len(data) == 0 {
		return false
	}
	if data[0] == '[' && string(data) == "[DONE]" {
		st.done = true
		st.s.Total = now.Sub(st.t0)
		return true
	}
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		st.err = &RequestError{Kind: KindProtocol, Status: st.s.Status,
			Message: "undecodable chunk: " + truncate(string(data), 80), Err: err}
		return true
	}
	if (len(c.Error) > 0 && string(c.Error) != "null") || c.Object == "error" {
		st.err = &RequestError{Kind: KindMidstream, Status: st.s.Status, Message: errorMessage(data)}
		return true
	}
	if c.ID != "" && st.s.ID == "" {
		st.s.ID = c.ID
	}
	if c.Usage != nil {
		st.usage = true
		st.s.OutputTokens = c.Usage.CompletionTokens
		st.s.PromptTokens = c.Usage.PromptTokens
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		d := &ch.Delta
		answer := d.Content != "" || d.Refusal != "" || present(d.ToolCalls) || present(d.FunctionCall)
		reasoning := d.ReasoningContent != "" || d.Reasoning != ""
		if answer || reasoning {
			st.token(now, answer)
		}
		if reasoning {
			st.s.Reasoning += len(d.ReasoningContent) + len(d.Reasoning)
		}
		if d.Content != "" {
			st.keep(d.Content)
		}
		if ch.FinishReason != "" {
			st.s.Finish = string(ch.FinishReason)
			st.s.Total = now.Sub(st.t0)
		}
	}
	return false
}

// present: a JSON value that is there and not null or empty.
func present(raw json.RawMessage) bool {
	switch string(raw) {
	case "", "null", "[]", "{}":
		return false
	}
	return true
}

// token records a token-bearing chunk at now.
func (st *streamState) token(now time.Time, answer bool) {
	s := st.s
	if s.TTFT == 0 {
		s.TTFT = now.Sub(st.t0)
	} else {
		s.Gaps = append(s.Gaps, now.Sub(st.last))
	}
	if answer && s.TTFA == 0 {
		s.TTFA = now.Sub(st.t0)
	}
	st.last = now
	s.Chunks++
}

func (st *streamState) keep(text string) {
	room := st.maxContent - st.content.Len()
	if room <= 0 {
		st.s.ContentCut = true
		return
	}
	if len(text) > room {
		text = text[:room]
		st.s.ContentCut = true
	}
	st.content.WriteString(text)
}

// finish decides how the stream ended and fills the counts.
func (st *streamState) finish(ctx, parent context.Context, scanErr error) {
	s := st.s
	s.Content = st.content.String()
	end := time.Since(st.t0)
	switch {
	case st.err != nil:
		s.Total = end
		s.fail(st.err)
		return
	case scanErr != nil && !st.done && !(s.Finish != "" && errors.Is(scanErr, io.ErrUnexpectedEOF)):
		s.Total = end
		if errors.Is(scanErr, bufio.ErrTooLong) {
			s.fail(&RequestError{Kind: KindProtocol, Status: s.Status, Message: "stream line over the length limit", Err: scanErr})
			return
		}
		s.fail(classify(ctx, parent, scanErr))
		return
	case !st.done && s.Finish == "":
		s.Total = end
		s.fail(&RequestError{Kind: KindTruncated, Status: s.Status, Message: "stream ended without [DONE] or finish_reason"})
		return
	}
	if !st.done {
		// EOF after a finish_reason: the end of the stream is the EOF.
		s.Total = end
	}
	if st.usage {
		s.TokenSource = TokensUsage
	} else {
		s.OutputTokens = s.Chunks
		s.TokenSource = TokensEstimated
	}
}

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
		case cause == causeHeaders:
			return &RequestError{Kind: KindTimeoutHeaders, Message: cause.Error()}
		case cause == causeIdle:
			return &RequestError{Kind: KindTimeoutIdle, Message: cause.Error()}
		case cause == causeTotal:
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
