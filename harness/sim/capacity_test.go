package sim

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/lateness"
)

func TestServiceTimeAndCapacity(t *testing.T) {
	cases := map[string]struct {
		cfg            Config
		prompt, output int
		service        time.Duration
		capacity       float64
	}{
		"unlimited": {Config{TTFT: 40 * time.Millisecond, TPOT: 2 * time.Millisecond}, 0, 6,
			50 * time.Millisecond, math.Inf(1)},
		"two slots": {Config{TTFT: 40 * time.Millisecond, TPOT: 2 * time.Millisecond, Slots: 2}, 0, 6,
			50 * time.Millisecond, 40},
		"prefill and scale, jitter left out": {Config{TTFT: 40 * time.Millisecond, PrefillPerToken: time.Millisecond,
			Scale: 1.5, TPOT: 2 * time.Millisecond, TTFTJitter: 0.5, TPOTJitter: 0.5, Slots: 3}, 10, 6,
			85 * time.Millisecond, 3 / 0.085},
		"one token, no TPOT": {Config{TTFT: 40 * time.Millisecond, TPOT: 2 * time.Millisecond, Slots: 1}, 0, 1,
			40 * time.Millisecond, 25},
		"no tokens": {Config{TTFT: 40 * time.Millisecond, TPOT: 2 * time.Millisecond, Slots: 1}, 0, 0,
			40 * time.Millisecond, 25},
		"instant": {Config{Slots: 4}, 100, 100, 0, math.Inf(1)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st, capacity := tc.cfg.ServiceTime(tc.prompt, tc.output), tc.cfg.Capacity(tc.prompt, tc.output)
			if st != tc.service || math.Abs(capacity-tc.capacity) > 1e-9*tc.capacity && !math.IsInf(tc.capacity, 1) ||
				math.IsInf(tc.capacity, 1) != math.IsInf(capacity, 1) {
				t.Errorf("ServiceTime, Capacity = %v, %v; want %v, %v", st, capacity, tc.service, tc.capacity)
			}
		})
	}
}

// TestQueueAtConstantRate drives a two-slot server at a constant arrival
// rate below and above its capacity and holds every request's queue wait
// to the D/D/K arithmetic, computed from the server's own arrival instants
// and the nominal service time: a request starts when it arrives or when
// the earliest slot frees, whichever is later. Timer lateness only makes
// real service a little longer than nominal and piles up over the rounds,
// hence the one-sided relative slack.
func TestQueueAtConstantRate(t *testing.T) {
	cfg := Default()
	cfg.TTFT, cfg.TPOT, cfg.OutputTokens, cfg.Slots = 40*time.Millisecond, 2*time.Millisecond, 6, 2
	cfg.TTFTJitter, cfg.TPOTJitter = 0, 0
	capacity := cfg.Capacity(4, cfg.OutputTokens) // streamBody's prompt is 4 words
	cases := map[string]struct {
		load float64 // arrival rate / capacity
		n    int
	}{
		"below": {load: 0.4, n: 10},
		"above": {load: 2, n: 24},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// On a shared machine one run can meet a stall that no
			// tolerance fits; a real regression fails both runs.
			var problems []string
			for attempt := range 2 {
				srv, url := Start(t, cfg)
				problems = queueRun(t, srv, url, cfg, time.Duration(float64(time.Second)/(tc.load*capacity)), tc.n)
				if len(problems) == 0 {
					return
				}
				t.Logf("attempt %d: %d problems, first %s", attempt+1, len(problems), problems[0])
			}
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
}

// queueRun sends n stream requests every gap and checks what the server
// recorded; it returns what was wrong.
func queueRun(t *testing.T, srv *Server, url string, cfg Config, gap time.Duration, n int) []string {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	begin := time.Now()
	for i := range n {
		time.Sleep(time.Until(begin.Add(time.Duration(i) * gap)))
		wg.Go(func() {
			resp, err := post(t, client, url, streamBody, "")
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	trs := srv.Truth()
	if len(trs) != n {
		return []string{fmt.Sprintf("%d records for %d requests", len(trs), n)}
	}

	service, capacity := cfg.ServiceTime(4, cfg.OutputTokens), cfg.Capacity(4, cfg.OutputTokens)
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	free := make([]time.Time, cfg.Slots) // when each slot frees, by the arithmetic
	var sumT, sumW, sumTT, sumTW float64
	var worst time.Duration // largest |wait − arithmetic|, for the log
	for _, tr := range trs {
		k := 0
		for j := range free {
			if free[j].Before(free[k]) {
				k = j
			}
		}
		start := tr.Received
		if free[k].After(start) {
			start = free[k]
		}
		free[k] = start.Add(service)
		want := start.Sub(tr.Received)
		worst = max(worst, (tr.QueueWait - want).Abs())
		lo, hi := want-3*time.Millisecond, want+3*time.Millisecond+want*15/100
		if !tr.Done || tr.Finish != "stop" || tr.QueueWait < lo || tr.QueueWait > hi {
			bad("request %d: queue wait %v, want %v (within [%v, %v]); finish %q", tr.Index, tr.QueueWait, want, lo, hi, tr.Finish)
		}
		// The wait is inside time to first token, not time to first byte.
		if due := tr.Received.Add(tr.QueueWait + tr.TTFTDelay); tr.FirstToken.Before(due) {
			bad("request %d: first token %v before arrival + wait + TTFT delay", tr.Index, tr.FirstToken.Sub(due))
		}
		if tr.QueueWait > 20*time.Millisecond && tr.Headers.Sub(tr.Received) > tr.QueueWait/2 {
			bad("request %d: headers after %v of a %v queue wait; they go out before it", tr.Index,
				tr.Headers.Sub(tr.Received), tr.QueueWait)
		}
		x, w := tr.Received.Sub(trs[0].Received).Seconds(), tr.QueueWait.Seconds()
		sumT, sumW, sumTT, sumTW = sumT+x, sumW+w, sumTT+x*x, sumTW+x*w
	}
	// Backlog = arrivals − capacity·t, so each request waits backlog /
	// capacity: above capacity the wait grows with slope rate/capacity − 1.
	rate := float64(n-1) / trs[n-1].Received.Sub(trs[0].Received).Seconds()
	fn := float64(n)
	slope := (fn*sumTW - sumT*sumW) / (fn*sumTT - sumT*sumT)
	t.Logf("%.1f req/s for capacity %.1f: wait slope %.2f, last wait %v, worst |wait − arithmetic| %v",
		rate, capacity, slope, trs[n-1].QueueWait, worst)
	if want := max(rate/capacity-1, 0); math.Abs(slope-want) > 0.25 {
		bad("queue wait grows %.2f s per s of arrivals at %.1f req/s; capacity %.1f predicts %.2f", slope, rate, capacity, want)
	}
	if busy, queued := srv.Slots(); busy != 0 || queued != 0 {
		bad("slots busy %d, queued %d after the run", busy, queued)
	}
	return problems
}

// TestSlotsNoLeak runs every kind of exit through one slot, many clients
// giving up while queued, and checks that the slot comes back each time.
// A starved machine may let every client give up before its request is
// queued, or its handlers finish later than 2 s: the storm is sent again
// (up to 3 times) when none gave up queued, and the wait for idle is
// widened when the lateness probe saw the process starved (p99 over
// 0.5 ms). Proven: with the slot not released on a client's exit
// (slots.go's release skipped) it fails: slots busy 1, nothing in flight.
func TestSlotsNoLeak(t *testing.T) {
	cfg := fast()
	cfg.Slots = 1
	srv, url := Start(t, cfg)
	for try := 1; ; try++ {
		probe := lateness.Start()
		abandon(t, url, 60*time.Millisecond, append([]string{"", "none"}, FaultKinds...), 3)
		idle := srv.WaitIdle(2 * time.Second)
		late := probe.Stop()
		if !idle && late.Busy() {
			t.Logf("not idle 2 s after the storm on a starved process (%s): waiting 10 s more", late)
			idle = srv.WaitIdle(10 * time.Second)
		}
		if !idle {
			t.Fatalf("%d requests still in flight after their clients left (%s)", srv.InFlight(), late)
		}
		if busy, queued := srv.Slots(); busy != 0 || queued != 0 {
			t.Fatalf("slots busy %d, queued %d with nothing in flight", busy, queued)
		}
		leftQueued := 0
		for _, tr := range srv.Truth() {
			if tr.QueueWait > 0 && tr.FirstToken.IsZero() && tr.Status == http.StatusOK {
				leftQueued++
			}
		}
		if leftQueued > 0 {
			break
		}
		if try == 3 {
			t.Fatal("no client gave up while queued in 3 storms; the test did not exercise that exit")
		}
		t.Logf("storm %d: no client gave up while queued (%s); again", try, late)
	}
	srv.Reset()
	resp, err := post(t, http.DefaultClient, url, streamBody, "")
	if err != nil {
		t.Fatal(err)
	}
	rawBody(t, resp, 1<<20)
	// The request is found by its id: on a starved machine a handler of
	// the storm whose client had already gone may only now have run, and
	// be recorded after the Reset.
	id := resp.Header.Get("X-Request-Id")
	srv.WaitIdle(2 * time.Second)
	var found bool
	for _, tr := range srv.Truth() {
		if tr.ID != id {
			continue
		}
		found = true
		if tr.QueueWait != 0 || tr.Finish != "stop" {
			t.Errorf("after the storm: queue wait %v, finish %q; want 0, stop", tr.QueueWait, tr.Finish)
		}
	}
	if !found {
		t.Errorf("after the storm: no truth of request %q", id)
	}
}

// TestQueueWaitOnTheWire: a queued stream has its headers and role chunk at
// once, keep-alive comments while it waits, and its first token after the
// request ahead of it is done.
func TestQueueWaitOnTheWire(t *testing.T) {
	cfg := fast()
	cfg.TTFT, cfg.TTFTJitter, cfg.KeepAlive, cfg.Slots = 60*time.Millisecond, 0, 10*time.Millisecond, 1
	srv, url := Start(t, cfg)
	var wg sync.WaitGroup
	wg.Go(func() {
		if resp, err := post(t, http.DefaultClient, url, streamBody, ""); err == nil {
			rawBody(t, resp, 1<<20)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if busy, _ := srv.Slots(); busy > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first request never took its slot")
		}
	}
	resp, err := post(t, http.DefaultClient, url, streamBody, "")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := readSSE(t, resp.Body, "\n")
	resp.Body.Close()
	wg.Wait()
	s, tr := summarize(t, evs), srv.Truth()[1]
	if tr.QueueWait < 30*time.Millisecond || s.pings < 2 || s.roleOnly != 1 || s.tokens != cfg.OutputTokens {
		t.Errorf("queue wait %v, %d pings, %d role chunks, %d tokens; want a wait with pings, then the answer",
			tr.QueueWait, s.pings, s.roleOnly, s.tokens)
	}
	if tr.Headers.Sub(tr.Received) > tr.QueueWait/2 {
		t.Errorf("headers %v after arrival in a %v wait; they must come first", tr.Headers.Sub(tr.Received), tr.QueueWait)
	}
}

// TestSlowdownCountsSlots: with slots, a request shares compute only with
// the requests generating, not with those queued behind it; with one slot
// that is nobody, so no request is slowed however many are in flight.
func TestSlowdownCountsSlots(t *testing.T) {
	cfg := fast()
	cfg.TTFT, cfg.TTFTJitter, cfg.OutputTokens, cfg.Slowdown, cfg.Slots = 15*time.Millisecond, 0, 1, 1, 1
	srv, url := Start(t, cfg)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if resp, err := post(t, http.DefaultClient, url, plainBody, ""); err == nil {
				rawBody(t, resp, 1<<20)
			}
		})
	}
	wg.Wait()
	for _, tr := range srv.Truth() {
		if tr.TTFTDelay != cfg.TTFT {
			t.Errorf("request %d (queued %v): TTFT delay %v, want %v", tr.Index, tr.QueueWait, tr.TTFTDelay, cfg.TTFT)
		}
	}
}
