package health

import (
	"context"
	"sync"

	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
)

// maxRuns bounds the runs' figures an Observer keeps (a long session's
// levels, oldest dropped first).
const maxRuns = 4096

// Observer is the client's health as an observer of a session: one probe
// for the session, a window over each level's measured requests (from
// Measuring to LevelEnd), its figures kept by the level's run id. Probes
// of go test (one warm-up request) get no window.
type Observer struct {
	observe.Nop
	p *Probe

	mu    sync.Mutex
	open  map[*observe.Level]*Window
	runs  map[string]Figures
	order []string
}

// NewObserver starts the probe (watching for the in-process simulator's
// label when given one: Start).
func NewObserver(sim ...SimLabel) *Observer {
	return &Observer{p: Start(sim...), open: map[*observe.Level]*Window{}, runs: map[string]Figures{}}
}

// Measuring opens the level's window.
func (o *Observer) Measuring(lv *observe.Level) {
	if lv.Probe {
		return
	}
	w := o.p.Begin()
	o.mu.Lock()
	o.open[lv] = w
	o.mu.Unlock()
}

// LevelEnd closes it and keeps the figures under the level's run.
func (o *Observer) LevelEnd(_ context.Context, lv *observe.Level, _ []sample.Sample) {
	o.mu.Lock()
	w := o.open[lv]
	delete(o.open, lv)
	o.mu.Unlock()
	if w == nil || lv.Run == "" {
		return
	}
	f := w.End()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.runs[lv.Run] = f
	if o.order = append(o.order, lv.Run); len(o.order) > maxRuns {
		delete(o.runs, o.order[0])
		o.order = o.order[1:]
	}
}

// Of is the figures of the run the samples' measured ones belong to.
func (o *Observer) Of(samples []sample.Sample) (Figures, bool) {
	if o == nil {
		return Figures{}, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range samples {
		if samples[i].Measured() {
			f, ok := o.runs[samples[i].Run]
			return f, ok
		}
	}
	return Figures{}, false
}

// Close stops the probe.
func (o *Observer) Close() error {
	o.p.Stop()
	return nil
}
