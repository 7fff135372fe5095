package stream

import (
	"github.com/llmsla/llmsla/harness/sample"

	"crypto/tls"
	"net/http/httptrace"
	"sync"
	"time"
)

// phaseTrace collects connection phases through net/http/httptrace. The
// callbacks may run on transport goroutines, hence the lock.
type phaseTrace struct {
	mu                  sync.Mutex
	dnsStart, dnsDone   time.Time
	connStart, connDone time.Time
	tlsStart, tlsDone   time.Time
	firstByte           time.Time
	reused              bool
}

func (p *phaseTrace) trace() *httptrace.ClientTrace {
	at := func(t *time.Time) { p.mu.Lock(); *t = time.Now(); p.mu.Unlock() }
	return &httptrace.ClientTrace{
		DNSStart:             func(httptrace.DNSStartInfo) { at(&p.dnsStart) },
		DNSDone:              func(httptrace.DNSDoneInfo) { at(&p.dnsDone) },
		ConnectStart:         func(string, string) { at(&p.connStart) },
		ConnectDone:          func(string, string, error) { at(&p.connDone) },
		TLSHandshakeStart:    func() { at(&p.tlsStart) },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { at(&p.tlsDone) },
		GotFirstResponseByte: func() { at(&p.firstByte) },
		GotConn: func(i httptrace.GotConnInfo) {
			p.mu.Lock()
			p.reused = i.Reused
			p.mu.Unlock()
		},
	}
}

// into copies the phases into s. A phase that did not happen (a reused
// connection has no dns, connect or tls) stays zero.
func (p *phaseTrace) into(s *sample.Sample, t0 time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	span := func(a, b time.Time) time.Duration {
		if a.IsZero() || b.IsZero() {
			return 0
		}
		return b.Sub(a)
	}
	s.DNS = span(p.dnsStart, p.dnsDone)
	s.Connect = span(p.connStart, p.connDone)
	s.TLS = span(p.tlsStart, p.tlsDone)
	s.Reused = p.reused
	if !p.firstByte.IsZero() {
		s.TTFB = p.firstByte.Sub(t0)
	}
}
