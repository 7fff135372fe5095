package load

import (
	"context"
	"runtime"
	"time"
)

// The pacer's wait for a request's instant, in three steps. The runtime's
// timers wake up to a millisecond late (its poller waits in whole
// milliseconds), which would make every request late by half that on
// average; yielding in a loop until the instant is exact but holds a core,
// all of it above a few hundred requests a second. So: a timer to within
// timerWindow, then a thread sleep (nanosleep, late by its ~60 µs of slack,
// where the platform has one) to within spinWindow, then yields.
const (
	timerWindow = 2 * time.Millisecond
	spinWindow  = 150 * time.Microsecond
)

// threadSleep sleeps the calling thread for d, precisely; nil where the
// platform has no such sleep (the pacer then yields the whole last
// timerWindow). A variable, so that a benchmark can compare both.
var threadSleep func(d time.Duration)

// waitUntil returns at instant at, or false when ctx is done first.
func waitUntil(ctx context.Context, timer *time.Timer, at time.Time) bool {
	if d := time.Until(at); d > timerWindow {
		timer.Reset(d - timerWindow)
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
		}
	}
	if d := time.Until(at); threadSleep != nil && d > spinWindow {
		threadSleep(d - spinWindow)
	}
	for time.Now().Before(at) {
		runtime.Gosched()
	}
	return ctx.Err() == nil
}
