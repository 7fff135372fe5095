package stream

import (
	"encoding/base64"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"

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
	// Kind is what serves it (KindOpenAI by default; KindOllama enables
	// the native-timing breakdown; vLLM, SGLang and llama.cpp take a fixed
	// answer length).
	Kind Kind
	// KeyEnv names the environment variable the API key is read from.
	KeyEnv string
	// MaxTokensParam is the request field that caps the answer:
	// "max_tokens" (default; vLLM, Ollama, llama.cpp read it) or
	// "max_completion_tokens" (OpenAI's reasoning models refuse the other).
	MaxTokensParam string
	// API is the protocol it is served behind (APIChat when unset);
	// AnthropicVersion the anthropic-version header of APIMessages.
	API              API
	AnthropicVersion string
}

func (e Endpoint) String() string {
	return fmt.Sprintf("%s (%s, model %s)", e.Name, RedactURL(e.BaseURL), e.Model)
}

// Secrets are the values of ep a server could send back and no output may
// show: the API key, every header value, every value of the base URL's
// query (as given and decoded) and its user info. secret.New skips the
// short ones.
func (ep Endpoint) Secrets() []string {
	out := []string{ep.APIKey}
	for _, v := range ep.Headers {
		out = append(out, v)
	}
	if u, err := url.Parse(ep.BaseURL); err == nil {
		for _, pair := range strings.Split(u.RawQuery, "&") {
			_, raw, _ := strings.Cut(pair, "=")
			out = append(out, raw)
			if v, err := url.QueryUnescape(raw); err == nil {
				out = append(out, v)
			}
		}
		if u.User != nil {
			// Go sends user info as Basic auth: base64(user:password) is
			// the form a server could echo.
			p, _ := u.User.Password()
			out = append(out, u.User.Username(), p,
				base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+p)))
		}
	}
	return out
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
	Idle    time.Duration // with no byte of the stream received
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
	// FixedTokens, when > 0, asks for an answer of exactly this many
	// tokens (its cap too), from a server whose Kind can be asked
	// (Kind.FixedLength); ignored by any other.
	FixedTokens int
	// Tools are the functions the model may call, ToolChoice whether and
	// which (nil: the server's default, "auto" when tools are offered).
	Tools      []openai.Tool
	ToolChoice any
}

// wireRequest adds to go-openai's request what it cannot say: an explicit
// temperature of 0 (the outer field shadows the embedded one in
// encoding/json), and the parameters of a fixed answer length.
type wireRequest struct {
	openai.ChatCompletionRequest
	Temperature *float32 `json:"temperature,omitempty"`
	MinTokens   int      `json:"min_tokens,omitempty"`
	IgnoreEOS   bool     `json:"ignore_eos,omitempty"`
}

// The values of Endpoint.MaxTokensParam.
const (
	MaxTokens           = "max_tokens"
	MaxCompletionTokens = "max_completion_tokens"
)

// Client sends timed streaming requests to one endpoint.
type Client struct {
	ep         Endpoint
	url        string
	http       *http.Client
	maxLine    int
	maxContent int
	sec        *secret.Set
	pins       *pins // the connections conversations hold (pin.go)
	h1         *h1   // the lean path to a plain http:// endpoint (h1.go); nil: net/http
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// MaxLine bounds one SSE line; a longer one is a protocol error, so that a
// broken server cannot make the harness buffer without bound.
func MaxLine(n int) ClientOption { return func(c *Client) { c.maxLine = n } }

// MaxContent bounds the answer text kept for quality checks.
func MaxContent(n int) ClientOption { return func(c *Client) { c.maxContent = n } }

// Secrets adds values the client redacts from every sample it returns, on
// top of its endpoint's own (Endpoint.Secrets): a session passes those of
// the whole configuration.
func Secrets(set *secret.Set) ClientOption { return func(c *Client) { c.sec = c.sec.Union(set) } }

// HTTPClient replaces the HTTP client (its transport), e.g. for tests.
func HTTPClient(h *http.Client) ClientOption { return func(c *Client) { c.http = h } }

// NewClient returns a client for ep. Its transport keeps enough idle
// connections for high concurrency, and does not ask for gzip, which would
// let a proxy buffer the stream.
func NewClient(ep Endpoint, opts ...ClientOption) *Client {
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 30 * time.Second,
		DisableCompression:  true,
		// Each connection holds a read and a write buffer (4 KiB each
		// by default) for its life, idle or not: at 10,000 streams,
		// 80 MB. A request's headers fit in 1 KiB and a larger body is
		// written through; a stream's events come one to a read, and
		// the line reader, not this buffer, holds a long line.
		WriteBufferSize: 1 << 10,
		ReadBufferSize:  1 << 10,
	}
	own := &http.Client{Transport: tr}
	c := &Client{
		ep:         ep,
		url:        apiURL(ep),
		sec:        secret.New(ep.Secrets()...),
		pins:       &pins{},
		maxLine:    1 << 20,
		maxContent: 1 << 20,
		http:       own,
	}
	for _, o := range opts {
		o(c)
	}
	if c.ep.Timeouts == (Timeouts{}) {
		c.ep.Timeouts = DefaultTimeouts
	}
	if leanHTTP && c.http == own {
		c.h1 = newH1(c, tr)
	}
	return c
}

// Endpoint returns the client's endpoint.
func (c *Client) Endpoint() Endpoint { return c.ep }

// CloseIdle closes idle connections, so that a finished run leaves none.
func (c *Client) CloseIdle() {
	c.http.CloseIdleConnections()
	c.pins.closeIdle()
	if c.h1 != nil {
		c.h1.closeIdle()
	}
}

// Timeout causes, told apart through context.Cause.
var (
	errNoHeaders = errors.New("no response headers in time")
	errIdle      = errors.New("stream idle too long")
	errTooLong   = errors.New("request took too long")
)

// Body serialises req for the endpoint, streaming with usage.
func (c *Client) Body(req Request) ([]byte, error) {
	if b, ok, err := c.apiBody(req); ok {
		return b, err
	}
	w := wireRequest{
		ChatCompletionRequest: openai.ChatCompletionRequest{
			Model:          c.ep.Model,
			Messages:       req.Messages,
			MaxTokens:      req.MaxTokens,
			Seed:           req.Seed,
			ResponseFormat: req.ResponseFormat,
			Tools:          req.Tools,
			ToolChoice:     req.ToolChoice,
			Stream:         true,
			StreamOptions:  &openai.StreamOptions{IncludeUsage: true},
		},
		Temperature: req.Temperature,
	}
	if n := req.FixedTokens; n > 0 {
		minTokens, ignoreEOS, _ := c.ep.Kind.FixedLength()
		w.MaxTokens, w.IgnoreEOS = n, ignoreEOS
		if minTokens {
			w.MinTokens = n
		}
	}
	if c.ep.MaxTokensParam == MaxCompletionTokens {
		w.MaxTokens, w.MaxCompletionTokens = 0, w.MaxTokens
	}
	return json.Marshal(w)
}

// Do sends req and times it. It never returns an error: a failure is a
// sample.Sample whose ErrKind says what went wrong, so that a run goes on and counts.
func (c *Client) Do(ctx context.Context, req Request) sample.Sample {
	var s sample.Sample
	c.DoInto(ctx, req, &s)
	return s
}

// DoInto is Do writing the sample to *s (whatever it held before), for a
// caller that keeps it on the heap: a sample returned by value is held in
// the frame of every caller up to the one that keeps it, on the stack of a
// goroutine that waits under them for as long as the stream lasts.
func (c *Client) DoInto(ctx context.Context, req Request, s *sample.Sample) {
	*s = sample.Sample{Endpoint: c.ep.Name, Model: c.ep.Model}
	if c.ep.API == APIEmbeddings {
		c.embed(ctx, req, s) // not a stream (embeddings.go)
	} else if body, err := c.Body(req); err != nil {
		s.Fail(&sample.RequestError{Kind: sample.KindOther, Message: "encoding request", Err: err})
		return
	} else {
		c.stream(ctx, body, s)
	}
	if s.OK() && s.PromptTokens == 0 && s.TokenSource == sample.TokensEstimated {
		s.PromptTokens = estimatePrompt(req) // no usage: estimated, as token_source says
	}
	c.redact(s)
}

// estimatePrompt is a prompt's length in tokens when the server reports
// none: four bytes of English text a token, the usual BPE tokenizers'
// rough rate (METRICS.md: estimated, and marked so by token_source).
func estimatePrompt(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
		for _, p := range m.MultiContent {
			n += len(p.Text)
		}
		for _, c := range m.ToolCalls { // an agent loop's history
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	return (n + 3) / 4
}

// redact removes the secrets from every text of s a server could have
// put a secret in, whole or cut: a hostile or careless server may echo the
// request in its answer or its errors, and Go's transport errors quote the
// URL with its query. This is the one place a response's text enters a
// sample, so every writer after it (samples file, test output, goldens,
// reports) sees it redacted; they redact again as a second line.
func (c *Client) redact(s *sample.Sample) {
	if c.sec.Empty() {
		return
	}
	s.Content = c.sec.Redact(s.Content)
	if s.ContentCut {
		s.Content = c.sec.TrimPartial(s.Content)
	}
	s.Err = c.sec.Redact(s.Err)
	s.ID = c.sec.Redact(s.ID)
	s.ResponseModel = c.sec.Redact(s.ResponseModel)
	s.SystemFingerprint = c.sec.Redact(s.SystemFingerprint)
	for i := range s.ToolCalls {
		tc := &s.ToolCalls[i]
		tc.ID, tc.Name, tc.Arguments = c.sec.Redact(tc.ID), c.sec.Redact(tc.Name), c.sec.Redact(tc.Arguments)
		if tc.ArgumentsCut {
			tc.Arguments = c.sec.TrimPartial(tc.Arguments)
		}
	}
	s.Finish = c.sec.Redact(s.Finish)
	s.RetryAfter = c.sec.Redact(s.RetryAfter)
}

// notAStream is why resp is not an event stream to read: a status other
// than 200, another content type, an encoding; nil when it is one. Apart
// from stream, so that its messages' frame is not on the stack of every
// stream waiting for its next bytes.
//
//go:noinline
func (c *Client) notAStream(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK {
		return statusError(resp, c.sec)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 257))
		cut := len(msg) > 256
		return &sample.RequestError{Kind: sample.KindProtocol, Status: resp.StatusCode,
			Message: fmt.Sprintf("content type %q, want text/event-stream: %s", quote(c.sec, []byte(ct), 80, false), quote(c.sec, msg[:min(len(msg), 256)], 120, cut))}
	}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		// The request said identity: a proxy or server that compresses
		// anyway may also buffer, and its bytes are not SSE lines.
		return &sample.RequestError{Kind: sample.KindProtocol, Status: resp.StatusCode,
			Message: fmt.Sprintf("body is encoded (Content-Encoding: %s) though the request asked for none", quote(c.sec, []byte(enc), 40, false))}
	}
	return nil
}

// newStreamRequest is the request net/http sends for a stream; newH1
// writes the same headers.
func (c *Client) newStreamRequest(ctx context.Context, body []byte) (*http.Request, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	// Said outright, so that no transport asks for gzip on its own (Go's
	// does unless DisableCompression is set) and decodes it unseen.
	hreq.Header.Set("Accept-Encoding", "identity")
	c.setKey(hreq.Header)
	for k, v := range c.ep.Headers {
		hreq.Header.Set(k, v)
	}
	return hreq, nil
}

func (c *Client) stream(parent context.Context, body []byte, s *sample.Sample) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	to := c.ep.Timeouts

	var tr phaseTrace
	tctx := httptrace.WithClientTrace(ctx, tr.trace())
	var hreq *http.Request // nil on the lean path (h1.go)
	if c.h1 == nil {
		var err error
		if hreq, err = c.newStreamRequest(tctx, body); err != nil {
			s.Fail(&sample.RequestError{Kind: sample.KindOther, Message: "building request", Err: err})
			return
		}
	}

	var headerTimer, totalTimer *time.Timer
	t0 := time.Now()
	s.Start = t0
	if to.Total > 0 {
		totalTimer = time.AfterFunc(to.Total, func() { cancel(errTooLong) })
		defer totalTimer.Stop()
	}
	if to.Headers > 0 {
		headerTimer = time.AfterFunc(to.Headers, func() { cancel(errNoHeaders) })
	}
	var resp *http.Response
	var err error
	if hreq == nil {
		resp, err = c.h1.roundTrip(tctx, c.url, body)
	} else {
		resp, err = c.http.Do(hreq)
	}
	if headerTimer != nil {
		headerTimer.Stop()
	}
	tr.into(s, t0)
	if err != nil {
		s.Total = time.Since(t0)
		s.Fail(classify(ctx, parent, err))
		return
	}
	defer resp.Body.Close()
	s.Status = resp.StatusCode
	if err := c.notAStream(resp); err != nil {
		s.Total = time.Since(t0)
		s.Fail(err)
		return
	}

	var rb io.Reader = resp.Body
	if to.Idle > 0 {
		idle := watchIdle(to.Idle, func() { cancel(errIdle) })
		defer idle.stop()
		rb = idle.reader(rb)
	}
	lr := newLineReader(rb, c.maxLine)
	st := newStreamState(s, t0, c.maxContent, c.maxLine, c.sec)
	st.api = c.reader()
	readErr := st.consume(lr)
	if st.done {
		// Let the connection go back to the pool.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	}
	st.finish(ctx, parent, readErr, lr.Partial())
	lr.release()
}
