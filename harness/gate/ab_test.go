package gate_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// fakeEndpoint answers at once with a drawn latency: TTFT lognormal around
// ttft ms (σ 0.1, the simulator's), the right answer to the case it is
// asked unless wrong says otherwise. It records the order of requests.
type fakeEndpoint struct {
	name    string
	ttft    float64
	wrong   map[string]bool // cases it gets wrong
	answers map[string][2]string
	// The two endpoints of a test share the generator and the log, and
	// the lock on both.
	mu  *sync.Mutex
	rng *rand.Rand
	log *[]string
}

func (f *fakeEndpoint) Do(_ context.Context, req stream.Request) sample.Sample {
	q := req.Messages[len(req.Messages)-1].Content
	a := f.answers[q]
	f.mu.Lock()
	ttft := f.ttft * math.Exp(0.1*f.rng.NormFloat64())
	*f.log = append(*f.log, f.name+" "+a[1])
	f.mu.Unlock()
	content := a[0]
	if f.wrong[a[1]] {
		content = "no idea"
	}
	d := time.Duration(ttft * float64(time.Millisecond))
	return sample.Sample{Endpoint: "set by the client", Start: time.Now(), TTFT: d, TTFA: d, Total: d + 10*time.Millisecond,
		OutputTokens: 6, Chunks: 6, Finish: "stop", Content: content}
}

func abCases(t *testing.T) ([]quality.Case, map[string][2]string) {
	t.Helper()
	cases, err := quality.LoadCases("../../fixtures/classify.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string][2]string{}
	for _, c := range cases {
		msgs := c.Render()
		answers[msgs[len(msgs)-1].Content] = [2]string{c.Answer, c.ID}
	}
	return cases, answers
}

// The gate judges the samples of an interleaved run (load.Interleave): a
// candidate 20% slower is flagged, an identical one passes, the cases it
// newly fails are named, paired by case.
func TestAB(t *testing.T) {
	cases, answers := abCases(t)
	run := func(candTTFT float64, wrong map[string]bool) (*gate.Report, []string) {
		t.Helper()
		var log []string
		var mu sync.Mutex
		rng := rand.New(rand.NewPCG(9, 9))
		base := &fakeEndpoint{name: "prod", ttft: 100, answers: answers, mu: &mu, rng: rng, log: &log}
		cand := &fakeEndpoint{name: "canary", ttft: candTTFT, wrong: wrong, answers: answers, mu: &mu, rng: rng, log: &log}
		o := load.InterleaveOptions{Scenario: "chat", Cases: cases, Levels: []load.Pacer{load.Closed(1), load.Closed(4)}, Runs: 5, N: 20, Warmup: 1, MaxTokens: 16, Seed: 1}
		bs, cs, err := load.Interleave(context.Background(), load.Arm{Name: "prod", Doer: base}, load.Arm{Name: "canary", Doer: cand}, o)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := gate.GateRequests("prod", "canary", bs, cs, gate.Options{AcrossEndpoints: true})
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		rep.WriteText(&out)
		t.Log("\n" + out.String())
		return rep, log
	}
	t.Run("20% slower is flagged", func(t *testing.T) {
		rep, _ := run(120, nil)
		if !rep.Failed() || !hasRegression(rep, "ttft-p50-ms") {
			t.Errorf("canary 20%% slower: not flagged on ttft-p50-ms")
		}
	})
	t.Run("identical pass", func(t *testing.T) {
		if rep, _ := run(100, nil); rep.Failed() {
			t.Errorf("identical endpoints: failed")
		}
	})
	t.Run("cases that fail are named", func(t *testing.T) {
		rep, _ := run(100, map[string]bool{"sent-001": true, "sent-002": true, "sent-003": true})
		var found []string
		for _, f := range rep.Regressions {
			if f.Unit == "accuracy-%" {
				for _, c := range f.Cases {
					found = append(found, c.Case)
				}
				if !f.Paired {
					t.Errorf("accuracy not paired by case")
				}
			}
		}
		if strings.Join(found, " ") != "sent-001 sent-002 sent-003" {
			t.Errorf("newly failing cases = %v, want sent-001..003", found)
		}
	})
}

func hasRegression(rep *gate.Report, unit string) bool {
	for _, f := range rep.Regressions {
		if f.Unit == unit {
			return true
		}
	}
	return false
}

// With one run a side the drift between runs cannot be measured, so no
// latency can be judged on requests: that is unusable input, not a pass
// with the latencies "not judged" (which let a candidate 3× slower pass).
func TestGateRequestsOneRun(t *testing.T) {
	cases, answers := abCases(t)
	var log []string
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(9, 9))
	// Each gets a different case wrong, so that the quality family has a
	// test and does not make the comparison unusable on its own.
	base := &fakeEndpoint{name: "prod", ttft: 100, wrong: map[string]bool{"sent-001": true}, answers: answers, mu: &mu, rng: rng, log: &log}
	cand := &fakeEndpoint{name: "canary", ttft: 300, wrong: map[string]bool{"sent-002": true}, answers: answers, mu: &mu, rng: rng, log: &log}
	o := load.InterleaveOptions{Scenario: "chat", Cases: cases, Levels: []load.Pacer{load.Closed(1)}, Runs: 1, N: 40, MaxTokens: 16, Seed: 1}
	bs, cs, err := load.Interleave(context.Background(), load.Arm{Name: "prod", Doer: base}, load.Arm{Name: "canary", Doer: cand}, o)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := gate.GateRequests("prod", "canary", bs, cs, gate.Options{AcrossEndpoints: true})
	if !errors.Is(err, recording.ErrUnusable) {
		var out strings.Builder
		if rep != nil {
			rep.WriteText(&out)
		}
		t.Fatalf("err = %v, want ErrUnusable; report:\n%s", err, out.String())
	}
	for _, w := range []string{"chat ttft-p", "drift between runs", "have 2", "-count"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q:\n%v", w, err)
		}
	}
}
