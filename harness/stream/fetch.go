package stream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
)

// Fetch sends one plain request beside the measured ones — a preflight or
// a provenance probe: GET when body is nil, else POST of JSON body — to
// u with the endpoint's key and headers, and reads at most limit bytes of
// the answer (more is cut, and cut says so). A status other than 200 is an
// error, classified and redacted as a measured request's is
// (*sample.RequestError); so is a failure to connect. The body of a 200 is
// the server's, unredacted: callers parse it and redact what they keep.
func (c *Client) Fetch(ctx context.Context, u string, body []byte, limit int64) (resp []byte, cut bool, err error) {
	resp, cut, _, err = c.FetchHeader(ctx, u, body, limit)
	return resp, cut, err
}

// FetchHeader is Fetch that also returns the response's headers (nil
// when none arrived), which say what server answered.
func (c *Client) FetchHeader(ctx context.Context, u string, body []byte, limit int64) (resp []byte, cut bool, h http.Header, err error) {
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		method, rd = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, false, nil, &sample.RequestError{Kind: sample.KindOther, Message: "building request", Err: err}
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.setKey(req.Header)
	for k, v := range c.ep.Headers {
		req.Header.Set(k, v)
	}
	r, err := c.http.Do(req)
	if err != nil {
		return nil, false, nil, c.redactErr(classify(ctx, ctx, err))
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		return nil, false, r.Header, c.redactErr(statusError(r, c.sec))
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, false, r.Header, c.redactErr(classify(ctx, ctx, err))
	}
	if int64(len(b)) > limit {
		return b[:limit], true, r.Header, nil
	}
	return b, false, r.Header, nil
}

// redactErr is err with the configuration's secrets taken out of its text.
func (c *Client) redactErr(err error) error {
	re, ok := err.(*sample.RequestError)
	if !ok {
		return fmt.Errorf("%s", c.sec.Redact(err.Error()))
	}
	msg := re.Message
	if msg == "" && re.Err != nil {
		msg = re.Err.Error()
	}
	return &sample.RequestError{Kind: re.Kind, Status: re.Status, Message: c.sec.Redact(msg)}
}

// Below is the URL of path below the endpoint's base URL ("models" →
// https://host/v1/models), keeping the base URL's query (Azure's
// api-version, a gateway's key parameter).
func (c *Client) Below(path string) string {
	u, err := url.Parse(c.ep.BaseURL)
	if err != nil {
		return strings.TrimRight(c.ep.BaseURL, "/") + "/" + path
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/" + strings.TrimLeft(path, "/")
	u.RawPath = ""
	return u.String()
}

// Root is the URL of path at the root of the endpoint's server
// ("/api/version" on an Ollama at http://host:11434/v1), without the base
// URL's query.
func (c *Client) Root(path string) string {
	u, err := url.Parse(c.ep.BaseURL)
	if err != nil {
		return path
	}
	u.Path, u.RawPath, u.RawQuery = "/"+strings.TrimLeft(path, "/"), "", ""
	return u.String()
}
