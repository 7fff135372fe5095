package health

import (
	"bytes"
	"runtime/pprof"

	"github.com/google/pprof/profile"
)

// The in-process simulator's share of the process's CPU. Its handlers are
// goroutines of the client's process: on two busy cores they and the
// client starve each other, and the client's CPU figure is theirs too. The
// simulator serves under a profiler label (sim.Serve's, inherited by every
// goroutine its server starts); a window of a probe that watches for it
// runs the process's CPU profiler and counts the samples that carry the
// label against all of them. Go's CPU profile is process-wide and one at a
// time: a window opened while another profile runs (a user's
// -test.cpuprofile, an overlapping window) has no share, and says so
// (SimMeasured false), never 0.

// MinSimSamples is the profile samples (10 ms of CPU each, at the
// profiler's 100 Hz) a share rests on before it is a figure: at 50 its
// sampling error is at most ± 0.07 at 1σ. A level that used less CPU than
// that (half a second) has no share: it did not take the client's cores.
const MinSimSamples = 50

// SimLabel is the profiler label the in-process simulator's goroutines
// carry: a Probe with one set measures their share of the CPU.
type SimLabel struct{ Key, Value string }

// simWindow is a window's profile, nil when none could be started.
type simWindow struct{ buf bytes.Buffer }

// beginSim starts the CPU profile for a window, or gives nil.
func beginSim(l SimLabel) *simWindow {
	if l.Key == "" {
		return nil
	}
	w := &simWindow{}
	if pprof.StartCPUProfile(&w.buf) != nil {
		return nil
	}
	return w
}

// end stops the profile and gives the labelled samples' share of the CPU
// it sampled, the samples, and whether they were enough (MinSimSamples).
func (w *simWindow) end(l SimLabel) (share float64, samples int, ok bool) {
	if w == nil {
		return 0, 0, false
	}
	pprof.StopCPUProfile()
	p, err := profile.Parse(&w.buf)
	if err != nil || len(p.SampleType) == 0 {
		return 0, 0, false
	}
	// The CPU time is the last value (samples/count, cpu/nanoseconds).
	v := len(p.SampleType) - 1
	var sim, all int64
	for _, s := range p.Sample {
		all += s.Value[v]
		for _, lv := range s.Label[l.Key] {
			if lv == l.Value {
				sim += s.Value[v]
				break
			}
		}
		samples += int(s.Value[0])
	}
	if all == 0 || samples < MinSimSamples {
		return 0, samples, false
	}
	return float64(sim) / float64(all), samples, true
}
