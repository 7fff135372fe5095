package sim

import (
	"net/http"
	"testing"
	"time"
)

// TestSlowAfter checks the drift rule on the server's own arrival instants,
// so that scheduling noise can move a request across SlowAfter without
// failing the test; the layout only makes sure both sides are exercised.
func TestSlowAfter(t *testing.T) {
	cfg := fast()
	cfg.PrefillPerToken, cfg.TTFTJitter = time.Millisecond, 0
	cfg.SlowAfter, cfg.SlowFactor = 100*time.Millisecond, 4
	srv, url := Start(t, cfg)
	send := func() {
		resp, err := post(t, http.DefaultClient, url, streamBody, "")
		if err != nil {
			t.Fatal(err)
		}
		rawBody(t, resp, 1<<20)
	}
	base := cfg.TTFT + 4*cfg.PrefillPerToken // streamBody's prompt is 4 words
	check := func(trs []Truth) {
		t.Helper()
		for _, tr := range trs {
			want := 1.0
			if tr.Received.Sub(trs[0].Received) > cfg.SlowAfter {
				want = cfg.SlowFactor
			}
			if tr.SlowFactor != want || tr.TTFTDelay != scaled(base, want) ||
				tr.FirstToken.Sub(tr.Received) < tr.TTFTDelay {
				t.Errorf("request %d, %v after the first: factor %v, TTFT delay %v, first token after %v; want %v, %v",
					tr.Index, tr.Received.Sub(trs[0].Received), tr.SlowFactor, tr.TTFTDelay,
					tr.FirstToken.Sub(tr.Received), want, scaled(base, want))
			}
		}
	}

	send()
	send()
	time.Sleep(2 * cfg.SlowAfter)
	send()
	trs := srv.Truth()
	check(trs)
	if trs[0].SlowFactor != 1 || trs[2].SlowFactor != cfg.SlowFactor {
		t.Errorf("factors %v, %v: the first request and one long after it must differ",
			trs[0].SlowFactor, trs[2].SlowFactor)
	}

	srv.Reset()
	send()
	if tr := srv.Truth()[0]; tr.SlowFactor != 1 {
		t.Errorf("first request after Reset slowed by %v", tr.SlowFactor)
	}
}
