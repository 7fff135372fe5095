package session

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// guard stops a session that should send nothing more: its budget spent
// (Run.MaxRequests, Run.MaxDuration), or an endpoint whose last
// Run.AbortAfter requests all failed with one kind that no load explains —
// a refused connection, a rejected key, a wrong URL or model, a server that
// does not speak the protocol. The rest of the run would fail alike, and
// its figures would be those of an error page.
type guard struct {
	run  Run
	done chan struct{} // closed when stopped

	mu     sync.Mutex
	err    error
	sent   int
	timer  *time.Timer
	streak map[string]streak // endpoint → its last requests' failures
}

// streak is how many consecutive requests to an endpoint failed with kind.
type streak struct {
	kind sample.ErrorKind
	n    int
	last string // the last one's message
}

// abortKinds are the failures that say nothing about load: the same cause
// fails every request alike, whatever the rate.
var abortKinds = map[sample.ErrorKind]bool{
	sample.KindConnRefused: true, sample.KindAuth: true, sample.KindClientError: true, sample.KindProtocol: true,
}

func newGuard(run Run) *guard {
	return &guard{run: run, done: make(chan struct{}), streak: map[string]streak{}}
}

// stopped is why the session stopped, nil while it sends.
func (g *guard) stopped() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// stop records the first reason to stop and cancels what is in flight.
// Callers hold g.mu.
func (g *guard) stop(err error) {
	if g.err == nil {
		g.err = err
		close(g.done)
	}
}

// watch returns ctx, cancelled when the session stops; it starts the
// duration budget's clock at the session's first request.
func (g *guard) watch(ctx context.Context) (context.Context, context.CancelFunc) {
	g.mu.Lock()
	if g.timer == nil && g.run.MaxDuration > 0 {
		d := g.run.MaxDuration
		g.timer = time.AfterFunc(d, func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.stop(fmt.Errorf("budget: max_duration %s reached after %d requests: the rest of the run was not sent", d, g.sent))
		})
	}
	g.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-g.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// add counts a finished request to endpoint.
func (g *guard) add(endpoint string, s *sample.Sample) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return // cancelled by the stop: not a failure of the endpoint
	}
	g.sent++
	if m := g.run.MaxRequests; m > 0 && g.sent >= m {
		g.stop(fmt.Errorf("budget: max_requests %d reached: the rest of the run was not sent", m))
	}
	st := g.streak[endpoint]
	switch {
	case s.OK() || !abortKinds[s.ErrKind]:
		st = streak{}
	case st.kind == s.ErrKind:
		st.n++
	default:
		st = streak{kind: s.ErrKind, n: 1}
	}
	st.last = s.Err
	g.streak[endpoint] = st
	if a := g.run.AbortAfter; a > 0 && st.n >= a {
		g.stop(fmt.Errorf("endpoint %s: the last %d requests all failed with %s (%s): stopped, the rest would fail alike (-keep-going sends them anyway)",
			endpoint, st.n, st.kind, st.last))
	}
}
