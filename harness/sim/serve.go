package sim

import (
	"context"
	"net"
	"net/http"
	"runtime/pprof"
	"time"
)

// LabelKey and LabelValue are the profiler label every goroutine of a
// served simulator carries (its server's, inherited by each connection's):
// the client's health counts the CPU they take in its process
// (health.SimLabel).
const LabelKey, LabelValue = "llmsla", "sim"

// Serve serves s on a free loopback port until stop is called, and returns
// its base URL (http://127.0.0.1:port, without /v1). stop closes every
// connection, in flight or idle, so that stalled faults end with it. It is
// a plain net/http server: programs (llmsla, the session) serve the
// simulator without net/http/httptest.
func Serve(s *Server) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go pprof.Do(context.Background(), pprof.Labels(LabelKey, LabelValue), func(context.Context) {
		defer close(done)
		// Serve returns ErrServerClosed once stop closes it; any other
		// error (the listener failing) shows as requests that fail.
		_ = hs.Serve(ln)
	})
	return "http://" + ln.Addr().String(), func() {
		hs.Close()
		<-done
	}, nil
}
