package sim

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// seen is one request as a raw in-process client timed it.
type seen struct {
	id                            string
	t0                            time.Time
	firstToken, firstAnswer, last time.Time
	tokens, usage                 int
}

// load sends n stream requests, conc at a time, and times what it reads.
func load(t *testing.T, url string, n, conc int) []seen {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}}
	defer client.CloseIdleConnections()
	out := make([]seen, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for i := range next {
				t0 := time.Now()
				resp, err := post(t, client, url, streamBody, "")
				if err != nil {
					t.Error(err)
					return
				}
				s := scan(t, resp)
				s.id, s.t0 = resp.Header.Get("X-Request-Id"), t0
				out[i] = s
			}
		})
	}
	wg.Wait()
	return out
}

// scan times a stream with as little work per line as a client can do, so
// that at 200 streams the test measures the simulator, not its own parsing.
func scan(t *testing.T, resp *http.Response) seen {
	defer resp.Body.Close()
	var s seen
	r := bufio.NewReaderSize(resp.Body, 4096)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return s
		}
		now := time.Now()
		answer := bytes.Contains(line, []byte(`"content":"`)) && !bytes.Contains(line, []byte(`"content":""`))
		if answer || bytes.Contains(line, []byte(`"reasoning_content":"`)) {
			s.tokens++
			if s.firstToken.IsZero() {
				s.firstToken = now
			}
			if answer && s.firstAnswer.IsZero() {
				s.firstAnswer = now
			}
		}
		if i := bytes.Index(line, []byte(`"completion_tokens":`)); i >= 0 {
			fmt.Sscan(string(line[i+len(`"completion_tokens":`):]), &s.usage)
		}
		if bytes.HasPrefix(line, []byte("data: [DONE]")) {
			s.last = now
		}
	}
}

var strict = flag.Bool("sim.strict", false,
	"hold the concurrent truth test to the serial bounds; needs a quiet machine")

// TestTruthMatchesClient is the point of Truth: what a client on the same
// clock measures must agree with what the server did. The server stamps an
// event after its Flush returns, so a client can read it a few µs before
// the stamp; anything more than that is scheduling noise, which on a shared
// 2-core machine under 200 streams is mostly other processes: hence looser
// default bounds there, and -sim.strict for a quiet machine.
func TestTruthMatchesClient(t *testing.T) {
	cases := map[string]struct {
		n, conc, tokens int
		tpot            time.Duration
		within          time.Duration // bound on the median (and p95 if tail) of |client − server|, and on lateness
		tail            bool
	}{
		"serial":     {n: 10, conc: 1, tokens: 8, tpot: 5 * time.Millisecond, within: 2 * time.Millisecond, tail: true},
		"concurrent": {n: 400, conc: 200, tokens: 16, tpot: 10 * time.Millisecond, within: 15 * time.Millisecond},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && tc.conc > 1 {
				t.Skip("load test")
			}
			if *strict {
				tc.within, tc.tail = 2*time.Millisecond, true
			}
			cfg := Default()
			cfg.TTFT, cfg.TPOT, cfg.OutputTokens, cfg.ReasoningTokens = 20*time.Millisecond, tc.tpot, tc.tokens, 2
			srv, url := Start(t, cfg)
			got := load(t, url, tc.n, tc.conc)
			byID := map[string]Truth{}
			for _, tr := range srv.Truth() {
				byID[tr.ID] = tr
			}
			var lags, late []time.Duration
			for _, c := range got {
				tr, ok := byID[c.id]
				if !ok || !tr.Done {
					t.Fatalf("no final truth for %q", c.id)
				}
				if c.tokens != tr.OutputTokens || c.usage != tr.OutputTokens || c.tokens != tc.tokens+2 {
					t.Errorf("%s: client counted %d, usage %d, truth %d; want %d",
						c.id, c.tokens, c.usage, tr.OutputTokens, tc.tokens+2)
				}
				if tr.Received.Before(c.t0) {
					t.Errorf("%s: received before the client sent it", c.id)
				}
				for _, pair := range [][2]time.Time{{c.firstToken, tr.FirstToken}, {c.firstAnswer, tr.FirstAnswer}, {c.last, tr.Last}} {
					lags = append(lags, pair[0].Sub(pair[1]).Abs())
				}
				late = append(late, tr.FirstToken.Sub(tr.Received)-tr.TTFTDelay)
			}
			t.Logf("|client − server|: p50 %v p95 %v max %v; server's first token late by p50 %v p95 %v",
				pct(lags, 0.5), pct(lags, 0.95), pct(lags, 1), pct(late, 0.5), pct(late, 0.95))
			for _, x := range []struct {
				what string
				d    time.Duration
			}{{"p50 |client − server|", pct(lags, 0.5)}, {"p95 |client − server|", pct(lags, 0.95)},
				{"p50 server lateness", pct(late, 0.5)}} {
				if x.d > tc.within && (tc.tail || !strings.HasPrefix(x.what, "p95")) {
					t.Errorf("%s = %v, want <= %v", x.what, x.d, tc.within)
				}
			}
		})
	}
}

func pct(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

func TestDeterminism(t *testing.T) {
	cfg := fast()
	cfg.Faults = map[string]float64{FaultRateLimited: 0.2, FaultServerErrorJSON: 0.1, FaultAuth: 0.1}
	cfg.WrongRate, cfg.InvalidJSONRate, cfg.Seed = 0.3, 0.3, 42
	run := func(srv *Server, url string) []string {
		for range 40 {
			resp, err := post(t, http.DefaultClient, url, streamBody, "")
			if err != nil {
				t.Fatal(err)
			}
			rawBody(t, resp, 1<<20)
		}
		var out []string
		for _, tr := range srv.Truth() {
			out = append(out, fmt.Sprint(tr.Index, tr.Fault, tr.Wrong, tr.InvalidJSON, tr.TTFTDelay, tr.Answer))
		}
		srv.Reset()
		return out
	}
	a, urlA := Start(t, cfg)
	b, urlB := Start(t, cfg)
	first, second, again := run(a, urlA), run(b, urlB), run(a, urlA)
	if !slices.Equal(first, second) || !slices.Equal(first, again) {
		t.Fatalf("same seed, different runs:\n%q\n%q\n%q", first, second, again)
	}
	kinds := map[string]bool{}
	for _, tr := range first {
		kinds[tr] = true
	}
	cfg.Seed = 43
	c, urlC := Start(t, cfg)
	if slices.Equal(first, run(c, urlC)) {
		t.Error("another seed gave the very same run")
	}
}

// TestNoLeaks leaves every stalling fault to its client's timeout and then
// checks that the simulator has nothing left running.
func TestNoLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		srv, url := Start(t, fast())
		abandon(t, url, 50*time.Millisecond, []string{FaultTimeoutHeaders, FaultTimeoutIdle, FaultTimeoutTotal, FaultProtocolLongLine,
			FaultStallMidline, FaultFlood, ""}, 20)
		if !srv.WaitIdle(2 * time.Second) {
			t.Errorf("%d requests still in flight after their clients left", srv.InFlight())
		}
	}()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("%d goroutines before, %d after", before, n)
	}
}

// abandon sends each fault n times at once, streaming, from a client that
// gives up after timeout, reading what arrives before then.
func abandon(t *testing.T, url string, timeout time.Duration, faults []string, n int) {
	t.Helper()
	client := &http.Client{Timeout: timeout}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	for _, f := range faults {
		for range n {
			wg.Go(func() {
				resp, err := post(t, client, url, streamBody, f)
				if err == nil {
					rawBody(t, resp, 4<<20)
				}
			})
		}
	}
	wg.Wait()
}

// TestSwapTruth: swap=3:m-b names m-b as the model that answered from the
// request of index 3 on, in the stream's chunks and in the truth.
func TestSwapTruth(t *testing.T) {
	cfg, err := ParseSpec("ttft=1ms,tpot=0s,tokens=2,swap=3:m-b")
	if err != nil {
		t.Fatal(err)
	}
	srv, base := Start(t, cfg)
	for i := range 5 {
		resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(`{"model":"m-a","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := "m-a"
		if i >= 3 {
			want = "m-b"
		}
		if !strings.Contains(string(body), `"model":"`+want+`"`) || strings.Count(string(body), `"model":"`) != strings.Count(string(body), `"model":"`+want+`"`) {
			t.Errorf("request %d: the chunks do not all name %s:\n%s", i, want, body)
		}
	}
	for _, tr := range srv.Truth() {
		want := "m-a"
		if tr.Index >= 3 {
			want = "m-b"
		}
		if tr.Served != want || tr.Model != "m-a" {
			t.Errorf("truth of request %d: served %q, asked %q; want %q, m-a", tr.Index, tr.Served, tr.Model, want)
		}
	}
}
