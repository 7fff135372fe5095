package sim

import (
	"io"
	"net"
	"net/http"
	"time"
)

// reset closes the connection with SO_LINGER 0, which makes the kernel send
// a RST instead of a FIN: the client reads "connection reset by peer"
// before any byte of a response.
func (c *call) reset() {
	conn, _, err := c.rc.Hijack()
	if err != nil {
		// HTTP/2 and recorders cannot be hijacked; aborting the handler
		// is the nearest thing (a stream reset, or a dropped connection).
		c.abort()
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
	c.tr.Last = time.Now()
}

// abort drops the connection mid-response: net/http recovers
// http.ErrAbortHandler silently and closes without ending the chunked body,
// so the client reads an unexpected EOF. The deferred bookkeeping in
// Server.chat still runs while the panic unwinds.
func (c *call) abort() {
	panic(http.ErrAbortHandler)
}

// statusFault answers with an error status, shaped as the providers send it.
func (c *call) statusFault() {
	h := c.w.Header()
	h.Set("X-Request-Id", c.tr.ID)
	var status int
	var kind, msg, code string
	switch c.tr.Fault {
	case FaultRateLimited:
		h.Set("Retry-After", "2")
		h.Set("x-ratelimit-limit-requests", "60")
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", "2s")
		status, kind, code = http.StatusTooManyRequests, "requests", "rate_limit_exceeded"
		msg = "Rate limit reached for requests. Please try again in 2s."
	case FaultServerError:
		// Proxies in front of model servers answer overload with HTML.
		h.Set("Content-Type", "text/html; charset=utf-8")
		c.w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(c.w, "<html><head><title>503 Service Unavailable</title></head>"+
			"<body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>\n")
		c.stampStatus(http.StatusServiceUnavailable)
		return
	case FaultServerErrorJSON:
		status, kind, msg = http.StatusInternalServerError, "server_error", "The server had an error while processing your request."
	case FaultClientError:
		status, kind, msg = http.StatusBadRequest, "invalid_request_error", "This model's maximum context length is exceeded."
		code = "context_length_exceeded"
	case FaultAuth:
		status, kind, msg = http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided."
		code = "invalid_api_key"
	case FaultEchoError:
		status, kind, msg = http.StatusBadRequest, "invalid_request_error", echoPreamble+" "+echoText(c.hr)
		code = "unsupported_parameter"
	}
	writeError(c.w, status, msg, kind, code)
	c.stampStatus(status)
}

func (c *call) stampStatus(status int) {
	c.rc.Flush()
	c.tr.Status = status
	c.tr.Headers = time.Now()
	c.tr.Last = c.tr.Headers
}

type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// writeError sends an OpenAI-style error body: {"error":{message,type,param,code}}.
func writeError(w http.ResponseWriter, status int, msg, kind, code string) {
	e := apiError{Message: msg, Type: kind}
	if code != "" {
		e.Code = &code
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(mustJSON(map[string]apiError{"error": e}))
}
