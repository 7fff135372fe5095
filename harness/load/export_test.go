package load

import "time"

// SetThreadSleep replaces the pacer's thread sleep (nil: yield the whole
// last stretch) and returns a func that restores it, so that a benchmark
// compares both waits in one run.
func SetThreadSleep(f func(time.Duration)) (restore func()) {
	old := threadSleep
	threadSleep = f
	return func() { threadSleep = old }
}

// ThreadSleep is the platform's thread sleep, nil where there is none.
func ThreadSleep() func(time.Duration) { return threadSleep }
