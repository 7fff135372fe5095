package gate

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// A latency percentile no change of which the gate could flag is not
// judged, and the gate does not pass: the headline names it (issue 24,
// item 8: an A/A run said "gate PASS … 0 regressed" while TTFT was blind).
// A tolerance wider than any change the MDE search considers (20×) makes
// a figure blind whatever the noise, so the cases are deterministic.
func TestGateBlind(t *testing.T) {
	rng := rand.New(rand.NewPCG(600, 7))
	w := newWorld(rng)
	base := w.record(rng, synthSide{runs: 10, n: 20, label: "b"})
	same := w.record(rng, synthSide{runs: 10, n: 20, label: "n"})
	slow := w.record(rng, synthSide{runs: 10, n: 20, label: "s", change: synthChange{scenario: "chat", scale: 1.5}})
	wide := map[string]Tolerance{"ttft-p50-ms": {Rel: 20}}
	cases := map[string]struct {
		cand     synthRecording
		opts     Options
		verdict  Verdict
		blind    int // Report.Blind
		allowed  int // Report.BlindAllowed
		headline []string
	}{
		// 200 requests of batch, one level: its p99 is blind, as the
		// committed golden/baseline.txt's is.
		"the p99 of batch": {cand: same, verdict: Blind, blind: 1,
			headline: []string{"gate BLIND: new vs base — 0 regressed", "; not judged, blind at these sample sizes: batch/endpoint=sim ttft-p99-ms"}},
		"the p99 of batch, allowed": {cand: same, opts: Options{AllowBlind: []string{"*-p99-ms"}}, verdict: Pass, allowed: 1,
			headline: []string{"gate PASS: new vs base", "; blind, allowed by -allow-blind: batch/endpoint=sim ttft-p99-ms"}},
		"blind is not a pass": {cand: same, opts: Options{Tolerance: wide, AllowBlind: []string{"*-p99-ms"}}, verdict: Blind, blind: 4, allowed: 1,
			headline: []string{"gate BLIND: new vs base — 0 regressed", "; not judged, blind at these sample sizes: batch/endpoint=sim ttft-p50-ms, chat/endpoint=sim ttft-p50-ms, extraction/endpoint=sim ttft-p50-ms, summary/endpoint=sim ttft-p50-ms; blind, allowed"}},
		"allowed, still named": {cand: same, opts: Options{Tolerance: wide, AllowBlind: []string{"ttft-p50-ms", "*-p99-ms"}}, verdict: Pass, allowed: 5,
			headline: []string{"gate PASS: new vs base", "; blind, allowed by -allow-blind: batch/endpoint=sim ttft-p50-ms, batch/endpoint=sim ttft-p99-ms, chat/endpoint=sim ttft-p50-ms, extraction/endpoint=sim ttft-p50-ms, and 1 more"}},
		"blind, no objective bounds it": {cand: same, opts: Options{Objective: func(g, u string) bool { return u == "ttft-p95-ms" }}, verdict: Pass,
			headline: []string{"gate PASS: new vs base", "; blind, no objective bounds them: batch/endpoint=sim ttft-p99-ms"}},
		"blind, an objective bounds it": {cand: same, opts: Options{Objective: func(g, u string) bool { return g == "batch/endpoint=sim" && u == "ttft-p99-ms" }}, verdict: Blind, blind: 1,
			headline: []string{"gate BLIND: new vs base", "; not judged, blind at these sample sizes: batch/endpoint=sim ttft-p99-ms"}},
		"a regression fails, blind or not": {cand: slow, opts: Options{Tolerance: wide}, verdict: Fail, blind: 5,
			headline: []string{"gate FAIL: new vs base", "; not judged, blind at these sample sizes: batch/endpoint=sim ttft-p50-ms"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rep, err := Gate(base.source("base"), tc.cand.source("new"), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			rep.WriteText(&out)
			headline, _, _ := strings.Cut(out.String(), "\n")
			if rep.Verdict() != tc.verdict || len(rep.Blind) != tc.blind || len(rep.BlindAllowed) != tc.allowed {
				t.Errorf("verdict %s, %d blind, %d allowed; want %s, %d, %d\n%s", rep.Verdict(), len(rep.Blind), len(rep.BlindAllowed), tc.verdict, tc.blind, tc.allowed, out.String())
			}
			for _, w := range tc.headline {
				if !strings.Contains(headline, w) {
					t.Errorf("headline lacks %q:\n%s", w, headline)
				}
			}
		})
	}
	if _, err := Gate(base.source("base"), same.source("new"), Options{AllowBlind: []string{"ttft-p99-msx"}}); err == nil || !strings.Contains(err.Error(), `allow-blind: "ttft-p99-msx" matches no unit`) {
		t.Errorf("a misspelt -allow-blind: err = %v, want a refusal", err)
	}
}
