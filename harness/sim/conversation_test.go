package sim

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestConversation plays a five-turn conversation whose history grows by
// the simulator's own answers: each turn's prompt tokens are the whole
// history's, its answer is the one for its last user message, and the
// TTFT a raw client measures grows with the history at the prefill cost
// (a least-squares slope within 10% of it).
func TestConversation(t *testing.T) {
	cfg := fast()
	cfg.TTFT, cfg.PrefillPerToken, cfg.TTFTJitter = 5*time.Millisecond, 200*time.Microsecond, 0
	var a Answers
	var questions []string
	for k := range 5 {
		q := words(string(rune('a'+k)), 40) + " ?"
		questions = append(questions, q)
		a.Add(q, "answer "+words(string(rune('A'+k)), 10), "")
	}
	a.Hook(&cfg)
	srv, url := Start(t, cfg)
	msgs := []string{"system", "You are terse."}
	var xs, ys []float64
	for k, q := range questions {
		msgs = append(msgs, "user", q)
		t0 := time.Now()
		resp, err := post(t, http.DefaultClient, url, chatBody(msgs...), "")
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := readSSE(t, resp.Body, "\n")
		resp.Body.Close()
		s := summarize(t, evs)
		tr := srv.Truth()[k]
		want := 0
		for i := 1; i < len(msgs); i += 2 {
			want += len(strings.Fields(msgs[i]))
		}
		if tr.PromptTokens != want || s.content != "answer "+words(string(rune('A'+k)), 10) {
			t.Fatalf("turn %d: %d prompt tokens, want %d; answer %q", k+1, tr.PromptTokens, want, s.content)
		}
		if tr.TTFTDelay != cfg.TTFT+time.Duration(want)*cfg.PrefillPerToken {
			t.Errorf("turn %d: ttft delay %v for %d tokens", k+1, tr.TTFTDelay, want)
		}
		xs, ys = append(xs, float64(want)), append(ys, float64(s.firstToken.Sub(t0)))
		msgs = append(msgs, "assistant", s.content)
	}
	if slope := fitSlope(xs, ys); slope < 0.9*float64(cfg.PrefillPerToken) || slope > 1.1*float64(cfg.PrefillPerToken) {
		t.Errorf("client TTFT grows %v per history token, want %v ± 10%%", time.Duration(slope), cfg.PrefillPerToken)
	}
}

// fitSlope is the least-squares slope of ys against xs.
func fitSlope(xs, ys []float64) float64 {
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	mx, my = mx/float64(len(xs)), my/float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	return sxy / sxx
}
