package sim

import (
	"net"
	"net/http/httptest"
	"testing"
	"time"
)

// Start serves cfg on a loopback httptest server for the length of the test
// and returns the server and its OpenAI base URL (ending in /v1). Cleanup
// closes client connections first, so stalled faults end with the test.
func Start(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("sim.Start: %v", err)
	}
	s := New(cfg)
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		if !s.WaitIdle(5 * time.Second) {
			t.Errorf("sim: %d requests still in flight after the server closed", s.InFlight())
		}
	})
	return s, ts.URL + "/v1"
}

// ClosedAddr returns a loopback host:port that nothing listens on, for
// connection_refused, which no server can inject. The port was free a moment
// ago; another process taking it in between is possible but unlikely.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("sim.ClosedAddr: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
