package load_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// logDoer answers at once and logs "name case-id" for each request, in the
// order they arrive (the log is shared by both arms).
type logDoer struct {
	name string
	ids  map[string]string // last message → case id
	mu   *sync.Mutex
	log  *[]string
}

func (d logDoer) Do(_ context.Context, req stream.Request) sample.Sample {
	d.mu.Lock()
	*d.log = append(*d.log, d.name+" "+d.ids[req.Messages[len(req.Messages)-1].Content])
	d.mu.Unlock()
	return sample.Sample{Endpoint: "set by the client", Start: time.Now(), TTFT: time.Millisecond, TTFA: time.Millisecond,
		Total: 2 * time.Millisecond, OutputTokens: 1, Chunks: 1, Finish: "stop", Content: "x"}
}

// Interleave sends each case to both endpoints, one pair after the other,
// who goes first drawn for each pair; every sample is labelled with its
// endpoint and the scenario; the runs walk the fixture.
func TestInterleave(t *testing.T) {
	cases, err := quality.LoadCases("../../fixtures/classify.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, c := range cases {
		msgs := c.Render()
		ids[msgs[len(msgs)-1].Content] = c.ID
	}
	var log []string
	var mu sync.Mutex
	base := load.Arm{Name: "prod", Doer: logDoer{"prod", ids, &mu, &log}}
	cand := load.Arm{Name: "canary", Doer: logDoer{"canary", ids, &mu, &log}}
	o := load.InterleaveOptions{Scenario: "chat", Cases: cases, Levels: []load.Pacer{load.Closed(1)}, Runs: 2, N: 20, Warmup: 1, MaxTokens: 16, Seed: 1}
	bs, cs, err := load.Interleave(context.Background(), base, cand, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2*20+1 || len(cs) != 2*20+1 {
		t.Fatalf("%d and %d samples, want 41 each (2 runs of 20, one warm-up)", len(bs), len(cs))
	}
	for _, ss := range [][]sample.Sample{bs, cs} {
		for _, s := range ss {
			if s.Scenario != "chat" || s.Endpoint != ss[0].Endpoint || s.FixtureCases != len(cases) {
				t.Fatalf("sample %+v: want scenario chat, one endpoint a side, %d fixture cases", s, len(cases))
			}
		}
	}
	if bs[0].Endpoint != "prod" || cs[0].Endpoint != "canary" {
		t.Errorf("endpoints %q and %q, want prod and canary", bs[0].Endpoint, cs[0].Endpoint)
	}
	// At concurrency 1 the requests go one by one: after the warm-up (one
	// pair), each pair is both endpoints asking one case.
	firsts := map[string]int{}
	seen := map[string]bool{}
	for i := 2; i < len(log); i += 2 {
		a, b := strings.Fields(log[i]), strings.Fields(log[i+1])
		if a[0] == b[0] || a[1] != b[1] {
			t.Fatalf("pair %d: %q then %q, want both endpoints asking one case", i/2, log[i], log[i+1])
		}
		firsts[a[0]]++
		seen[a[1]] = true
	}
	if firsts["prod"] == 0 || firsts["canary"] == 0 {
		t.Errorf("who went first: %v, want both, in random order", firsts)
	}
	if len(seen) != min(40, len(cases)) {
		t.Errorf("%d cases asked in two runs of 20 pairs, want %d: the runs walk the fixture", len(seen), min(40, len(cases)))
	}
	for name, bad := range map[string]load.InterleaveOptions{
		"no level": {Cases: cases, Runs: 1, N: 1},
		"no run":   {Cases: cases, Levels: o.Levels, N: 1},
	} {
		if _, _, err := load.Interleave(context.Background(), base, cand, bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, _, err := load.Interleave(context.Background(), base, load.Arm{Name: "prod", Doer: cand.Doer}, o); err == nil || !strings.Contains(err.Error(), `both endpoints are named "prod"`) {
		t.Errorf("two arms named prod: err = %v", err)
	}
}
