package lateness

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestBuckets: every duration falls in a bucket whose upper edge is at or
// above it and within 1/16 (or 1 µs) of it, and the buckets are in order.
func TestBuckets(t *testing.T) {
	prev := -1
	for us := int64(0); us < 1<<22; us = us + 1 + us/7 {
		d := time.Duration(us) * time.Microsecond
		b := bucket(d)
		if b < prev {
			t.Fatalf("%v in bucket %d, after %d", d, b, prev)
		}
		prev = b
		if up := upper(b); up <= d || float64(up-d) > max(float64(d)/16, float64(time.Microsecond))+1 {
			t.Fatalf("%v: bucket %d's upper edge %v", d, b, up)
		}
	}
}

// TestStarvedProbeIsLate is the probe's truth: with one P and a goroutine
// spinning on it, the runtime preempts the spinner only every ~10 ms, so
// the probe's wakes are late by milliseconds — and the figures say so;
// beside nothing they do not (bounded loosely: this machine is shared).
func TestStarvedProbeIsLate(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	quiet := During(func() { time.Sleep(200 * time.Millisecond) })
	t.Logf("quiet: %s", quiet)
	var stop sync.WaitGroup
	quit := make(chan struct{})
	stop.Go(func() {
		for {
			select {
			case <-quit:
				return
			default:
				for i := 0; i < 1e6; i++ {
					_ = i * i
				}
			}
		}
	})
	p := Start()
	m := p.Mark()
	time.Sleep(300 * time.Millisecond)
	win := p.Since(m)
	busy := p.Stop()
	close(quit)
	stop.Wait()
	t.Logf("starved: %s (window %s, %d stalls)", busy, win, len(busy.Stalls))
	if !busy.Busy() || busy.P50 < time.Millisecond {
		t.Errorf("a probe sharing its only P with a spinner: %s, want p50 ≥ 1 ms", busy)
	}
	if win.N == 0 || win.P50 < time.Millisecond || len(busy.Stalls) == 0 {
		t.Errorf("the window since the mark: %s, %d stalls", win, len(busy.Stalls))
	}
	if quiet.N < 20 {
		t.Errorf("quiet probe woke %d times in 200 ms", quiet.N)
	}
	if busy.P50 < 2*quiet.P50 {
		t.Errorf("starved p50 %v not above quiet p50 %v", busy.P50, quiet.P50)
	}
	if s := busy.Stalls[0]; busy.StalledIn(s.Due, s.Woke) != s.Woke.Sub(s.Due) {
		t.Errorf("StalledIn of a stall's own span")
	}
}
