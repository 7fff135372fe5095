// Package guard stops a session that should send nothing more: its
// budget spent (Limits.MaxRequests, Limits.MaxDuration), or an endpoint
// whose last Limits.AbortAfter requests all failed with one kind that no
// load explains — a refused connection, a rejected key, a wrong URL or
// model, a server that does not speak the protocol. The rest of the run
// would fail alike, and its figures would be those of an error page.
//
// The guard is an observer (package observe): it counts every request
// that ends and calls the level's Stop with an error saying why, once.
// The errors are typed ([Stop]) so that a command can tell a budget
// reached from an endpoint that went down.
package guard

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
)

// Limits are what the guard enforces; 0 is no limit.
type Limits struct {
	AbortAfter  int // consecutive failures of one abort kind that stop the run
	MaxRequests int
	MaxDuration time.Duration
}

// DefaultAbortAfter is how many consecutive failures of one such kind stop
// a run: enough that a transient refusal or two does not, few enough that
// a wrong URL costs seconds, not the run.
const DefaultAbortAfter = 10

// Why is what stopped a run.
type Why string

const (
	Budget Why = "budget"        // max_requests or max_duration reached
	Down   Why = "endpoint down" // an endpoint failed every request alike
)

// Stop is the error the guard stops a session with.
type Stop struct {
	Why      Why
	Endpoint string           // Down: the endpoint
	Kind     sample.ErrorKind // Down: how its requests failed
	N        int              // Down: how many in a row; Budget: requests sent
	Since    time.Duration    // Down: how far into the run the first of them failed
	Last     string           // Down: the last one's message
	msg      string
}

func (e *Stop) Error() string { return e.msg }

// Guard is the observer. Its zero value is not usable: call New.
type Guard struct {
	observe.Nop
	lim Limits

	mu      sync.Mutex
	stopped bool
	sent    int
	start   time.Time
	timer   *time.Timer
	streak  map[string]streak // endpoint → its last requests' failures
}

// streak is how many consecutive requests to an endpoint failed with kind.
type streak struct {
	kind  sample.ErrorKind
	n     int
	since time.Time // when the first of them ended
	last  string
}

// abortKinds are the failures that say nothing about load: the same cause
// fails every request alike, whatever the rate.
var abortKinds = map[sample.ErrorKind]bool{
	sample.KindConnRefused: true, sample.KindAuth: true, sample.KindClientError: true, sample.KindProtocol: true,
}

// New is a guard of lim.
func New(lim Limits) *Guard { return &Guard{lim: lim, streak: map[string]streak{}} }

// LevelStart starts the duration budget's clock at the first level.
func (g *Guard) LevelStart(_ context.Context, lv *observe.Level) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.start.IsZero() {
		return
	}
	g.start = time.Now()
	if d := g.lim.MaxDuration; d > 0 {
		stop := lv.Stop
		g.timer = time.AfterFunc(d, func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.stop(stop, &Stop{Why: Budget, N: g.sent,
				msg: fmt.Sprintf("budget: max_duration %s reached after %d requests: the rest of the run was not sent", d, g.sent)})
		})
	}
}

// stop stops the session once. Callers hold g.mu.
func (g *Guard) stop(stop func(error), err *Stop) {
	if !g.stopped {
		g.stopped = true
		stop(err)
	}
}

// Sample counts a finished request.
func (g *Guard) Sample(lv *observe.Level, s *sample.Sample) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return // cancelled by the stop: not a failure of the endpoint
	}
	g.sent++
	if m := g.lim.MaxRequests; m > 0 && g.sent >= m {
		g.stop(lv.Stop, &Stop{Why: Budget, N: g.sent, msg: fmt.Sprintf("budget: max_requests %d reached: the rest of the run was not sent", m)})
		return
	}
	name := lv.Endpoint
	if s.Endpoint != "" {
		name = s.Endpoint // an A/B level's samples are each one endpoint's
	}
	st := g.streak[name]
	switch {
	case s.OK() || !abortKinds[s.ErrKind]:
		st = streak{}
	case st.kind == s.ErrKind && st.n > 0:
		st.n++
	default:
		st = streak{kind: s.ErrKind, n: 1, since: time.Now()}
	}
	st.last = s.Err
	g.streak[name] = st
	if a := g.lim.AbortAfter; a > 0 && st.n >= a {
		since := st.since.Sub(g.start).Round(100 * time.Millisecond)
		g.stop(lv.Stop, &Stop{Why: Down, Endpoint: name, Kind: st.kind, N: st.n, Since: since, Last: st.last,
			msg: fmt.Sprintf("endpoint %s down since %s (%s into the run): the last %d requests in a row failed with %s (%s); stopped, the rest would fail alike (-keep-going sends them anyway)",
				name, st.since.UTC().Format("15:04:05 UTC"), since, st.n, st.kind, st.last)})
	}
}

// Close stops the duration budget's clock.
func (g *Guard) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.timer != nil {
		g.timer.Stop()
	}
	return nil
}
