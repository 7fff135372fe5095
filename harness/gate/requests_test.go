package gate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// The samples beside a run are checked as its benchmark lines are: a file
// cut short, a negative time, a request recorded twice, samples of another
// recording are unusable (exit 2) and named; a side without samples falls
// back to run figures and says so.
func TestGateSamplesFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(500, 7))
	w := newWorld(rng)
	dir := t.TempDir()
	base, err := w.record(rng, synthSide{runs: 10, n: 20, label: "b"}).write(dir, "base")
	if err != nil {
		t.Fatal(err)
	}
	newRec := w.record(rng, synthSide{runs: 10, n: 20, label: "n"})
	// variant writes the candidate with its samples file edited by edit.
	variant := func(name string, edit func(samples string) string) string {
		t.Helper()
		p, err := newRec.write(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		sp := recording.SamplesBeside(p)
		b, err := os.ReadFile(sp)
		if err != nil {
			t.Fatal(err)
		}
		if edit == nil {
			os.Remove(sp)
			return p
		}
		if err := os.WriteFile(sp, []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lines := func(s string) []string { return strings.SplitAfter(s, "\n") }
	cases := map[string]struct {
		new  string
		want []string // substrings of the error; none: it judges
		warn string
	}{
		"cut short": {
			new:  variant("cut", func(s string) string { return s[:len(s)-40] }),
			want: []string{"cut.samples.jsonl:", "cut short: its last line has no end", "re-record"},
		},
		"negative time": {
			new: variant("negative", func(s string) string {
				return strings.Replace(s, `"ttft_ns":`, `"ttft_ns":-`, 1)
			}),
			want: []string{"negative.samples.jsonl:1:", "negative time"},
		},
		"recorded twice": {
			new:  variant("twice", func(s string) string { return s + s }),
			want: []string{"twice.samples.jsonl:", "recorded twice"},
		},
		"another recording": {
			new: variant("other", func(s string) string {
				// The last run of every benchmark is gone: 9 runs in the
				// samples, 10 in the benchmark file.
				var kept []string
				for _, l := range lines(s) {
					if !strings.Contains(l, `"run":"n.9.`) {
						kept = append(kept, l)
					}
				}
				return strings.Join(kept, "")
			}),
			want: []string{"other.samples.jsonl has 9 runs of", "other.txt has 10", "not recorded together"},
		},
		"no samples": {
			new:  variant("bare", nil),
			warn: "bare.txt: no " + filepath.Join(dir, "bare.samples.jsonl") + ": every figure judged over runs",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rep, err := Gate(recording.File(base), recording.File(tc.new), Options{})
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(strings.Join(rep.Warnings, "\n"), tc.warn) {
					t.Errorf("warnings lack %q:\n%s", tc.warn, strings.Join(rep.Warnings, "\n"))
				}
				for _, f := range rep.Families {
					if f.Name != FamilyRuns {
						t.Errorf("family %s without samples", f.Name)
					}
				}
				return
			}
			if !errors.Is(err, recording.ErrUnusable) {
				t.Fatalf("err = %v, want ErrUnusable", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// The -N GOMAXPROCS suffix is the client's core count, not part of what is
// measured: by default it is ignored, with a warning when the sides
// differ; a file holding one benchmark at two is refused; MatchProcs keeps
// names whole.
func TestGateProcs(t *testing.T) {
	rng := rand.New(rand.NewPCG(501, 7))
	w := newWorld(rng)
	base := w.record(rng, synthSide{runs: 10, n: 20, label: "b", procs: 2})
	cand := w.record(rng, synthSide{runs: 10, n: 20, label: "n", procs: 8})
	rep, err := Gate(base.source("base"), cand.source("new"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rep.Warnings, "\n"); !strings.Contains(got, "10 benchmarks ran at GOMAXPROCS 2 in base and 8 in new: compared anyway") {
		t.Errorf("warnings:\n%s", got)
	}
	if len(rep.Families) != 3 {
		t.Errorf("families %+v, want latency, quality and runs: the samples match without the suffix", rep.Families)
	}
	_, err = Gate(base.source("base"), cand.source("new"), Options{MatchProcs: true})
	if err == nil || !strings.Contains(err.Error(), "no benchmark in common") {
		t.Errorf("MatchProcs: err = %v, want no benchmark in common", err)
	}
	// With names kept whole, samples (named without the suffix) still
	// meet their benchmarks.
	rep, err = Gate(base.source("base"), base.source("base"), Options{MatchProcs: true})
	if err != nil || len(rep.Families) != 3 {
		t.Errorf("MatchProcs, same GOMAXPROCS: err %v, families %+v; want latency, quality and runs", err, rep.Families)
	}
	// One run of batch recorded at GOMAXPROCS 4 among runs at 2.
	mixed := strings.Replace(base.txt, "concurrency=16-2\t", "concurrency=16-4\t", 1)
	_, err = Gate(recording.Stream("mixed", strings.NewReader(mixed)), base.source("base"), Options{})
	if err == nil || !strings.Contains(err.Error(), "several GOMAXPROCS") {
		t.Errorf("one benchmark at two GOMAXPROCS: err = %v, want a refusal", err)
	}
	// Plan and Check read one recording as Gate reads a side.
	src := recording.Stream("mixed", strings.NewReader(mixed)).WithSamples(base.samples)
	if _, err := Plan(src, "ttft-p95-ms", Tolerance{Rel: 0.1}, Options{}); err == nil || !strings.Contains(err.Error(), "several GOMAXPROCS") {
		t.Errorf("Plan of one benchmark at two GOMAXPROCS: err = %v, want a refusal", err)
	}
	src = recording.Stream("mixed", strings.NewReader(mixed)).WithSamples(base.samples)
	if _, err := Check(src, Options{}); err == nil || !strings.Contains(err.Error(), "several GOMAXPROCS") {
		t.Errorf("Check of one benchmark at two GOMAXPROCS: err = %v, want a refusal", err)
	}
	runs, err := Check(base.source("base"), Options{})
	if err != nil || len(runs) != 10 || runs["Chat/endpoint=sim/concurrency=5"] != 10 {
		t.Errorf("Check: runs %v, err %v; want 10 benchmarks of 10 runs", runs, err)
	}
}

// constSamples is one side of an A/B run on scenario chat: runs of n
// requests, every latency the same, the i-th request failing when fail(i).
func constSamples(side string, runs, n int, fail func(i int) bool) []sample.Sample {
	var out []sample.Sample
	for r := range runs {
		for i := range n {
			s := sample.Sample{Scenario: "chat", Endpoint: side, Level: sample.NewLevel("concurrency", 1),
				Run: fmt.Sprintf("%s.%d", side, r), Seq: i, TTFT: 100 * time.Millisecond, TTFA: 100 * time.Millisecond,
				Total: 200 * time.Millisecond, OutputTokens: 10, Chunks: 10, Finish: "stop"}
			if fail(r*n + i) {
				s.Fail(errors.New("boom"))
			}
			out = append(out, s)
		}
	}
	return out
}

// An empty latency family says why in its own terms: a latency has no
// "outcome", which is what the quality family's reason speaks of.
func TestGateEmptyLatencyFamily(t *testing.T) {
	bs := constSamples("prod", 3, 20, func(i int) bool { return i%10 == 0 })
	cs := constSamples("canary", 3, 20, func(i int) bool { return i%7 == 0 })
	rep, err := GateRequests("prod", "canary", bs, cs, Options{AcrossEndpoints: true})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.WriteText(&out)
	if !strings.Contains(out.String(), "0 tests: none on requests: every latency was the same on both sides") {
		t.Errorf("report:\n%s", out.String())
	}
}
