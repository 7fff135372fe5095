//go:build linux

package health_test

import (
	"context"
	"io"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/health"
)

var simLabel = health.SimLabel{Key: "llmsla", Value: "sim"}

// burn spins on a thread of its own until that thread has used d of
// CPU, and gives what it used: the truth a window's share is held to.
func burn(d time.Duration) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	x := 1
	for threadCPU()-start < d {
		for i := 0; i < 1e4; i++ {
			x ^= i * x
		}
	}
	_ = x
	return threadCPU() - start
}

func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestSimShareTruth: goroutines under the simulator's label burn a known
// CPU time beside unlabelled ones; the window's share is the labelled
// CPU over the process's (the window's own CPU figure), within the
// profiler's sampling error (≈ 250 samples at 100 Hz: ± 0.03 at 1σ).
func TestSimShareTruth(t *testing.T) {
	for name, tc := range map[string]struct{ sim, client time.Duration }{
		"a quarter": {400 * time.Millisecond, 1200 * time.Millisecond},
		"most":      {1200 * time.Millisecond, 400 * time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			p := health.Start(simLabel)
			defer p.Stop()
			w := p.Begin()
			var wg sync.WaitGroup
			var sim time.Duration
			wg.Go(func() {
				pprof.Do(context.Background(), pprof.Labels(simLabel.Key, simLabel.Value), func(context.Context) {
					// A goroutine the labelled one starts carries the label too,
					// as the simulator's connections do.
					var inner sync.WaitGroup
					var half time.Duration
					inner.Go(func() { half = burn(tc.sim / 2) })
					first := burn(tc.sim / 2)
					inner.Wait()
					sim = first + half
				})
			})
			wg.Go(func() { burn(tc.client) })
			wg.Wait()
			f := w.End()
			require.True(t, f.SimMeasured)
			process := time.Duration(f.CPU * float64(f.Wall))
			truth := float64(sim) / float64(process)
			t.Logf("simulator %v of the process's %v: share %.3f, measured %.3f", sim, process, truth, f.Sim)
			assert.InDelta(t, truth, f.Sim, 0.1)
		})
	}
}

// TestSimShareUnmeasured: a probe without a label, a window opened while
// another CPU profile runs (a user's -test.cpuprofile), or one of too
// little CPU has no share — said, never 0.
func TestSimShareUnmeasured(t *testing.T) {
	p := health.Start()
	f := p.Begin().End()
	p.Stop()
	assert.False(t, f.SimMeasured, "no label: nothing to measure")

	require.NoError(t, pprof.StartCPUProfile(io.Discard))
	p = health.Start(simLabel)
	w := p.Begin()
	burn(20 * time.Millisecond)
	f = w.End()
	p.Stop()
	pprof.StopCPUProfile()
	assert.False(t, f.SimMeasured, "the profiler was another's")

	// A window of less CPU than the share can rest on has none.
	p = health.Start(simLabel)
	w = p.Begin()
	burn(100 * time.Millisecond)
	f = w.End()
	assert.False(t, f.SimMeasured, "10 samples of the profiler are not a share")

	// And the window gave the profiler back: the next one measures.
	w = p.Begin()
	burn(800 * time.Millisecond)
	f = w.End()
	p.Stop()
	assert.True(t, f.SimMeasured)
	assert.Zero(t, f.Sim, "nothing carried the label")
}
