package sim

import (
	"net"
	"time"
)

// TB is what Start and ClosedAddr need of a test. *testing.T, *testing.B
// and testing.TB are TBs, and the simulator stays importable by programs
// (llmsla sim, the configuration) without the testing package.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Start serves cfg on a loopback server (Serve) for the length of the test
// and returns the server and its OpenAI base URL (ending in /v1). Cleanup
// closes client connections first, so stalled faults end with the test.
func Start(t TB, cfg Config) (*Server, string) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("sim.Start: %v", err)
	}
	s := New(cfg)
	url, stop, err := Serve(s)
	if err != nil {
		t.Fatalf("sim.Start: %v", err)
	}
	t.Cleanup(func() {
		stop()
		if !s.WaitIdle(5 * time.Second) {
			t.Errorf("sim: %d requests still in flight after the server closed", s.InFlight())
		}
	})
	return s, url + "/v1"
}

// ClosedAddr returns a loopback host:port that nothing listens on, for
// connection_refused, which no server can inject. The port was free a moment
// ago; another process taking it in between is possible but unlikely.
func ClosedAddr(t TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("sim.ClosedAddr: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
